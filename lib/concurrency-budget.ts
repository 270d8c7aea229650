/** Lambda refuses a reservation that leaves fewer than this many of the account's concurrent executions unreserved. */
export const LAMBDA_MIN_UNRESERVED_CONCURRENCY = 100;

/** One function's reserved concurrency, named for the error message. */
export interface Reservation {
  readonly functionName: string;
  readonly count: number;
}

/**
 * Fails synthesis when the stage's reservations would leave the account fewer than 100 unreserved
 * concurrent executions: Lambda would otherwise fail the deploy halfway, at the function that tips it.
 */
export function checkUnreservedConcurrency(reservations: readonly Reservation[], accountConcurrencyQuota: number): void {
  const reserved = reservations.reduce((sum, r) => sum + r.count, 0);
  if (reserved === 0) return;
  const unreserved = accountConcurrencyQuota - reserved;
  if (unreserved < LAMBDA_MIN_UNRESERVED_CONCURRENCY) {
    throw new Error(
      `Functions: ${reservations.length} functions reserve ${reserved} concurrent executions, leaving ${unreserved} of the account's quota of ${accountConcurrencyQuota}; Lambda keeps at least ${LAMBDA_MIN_UNRESERVED_CONCURRENCY} unreserved. Raise the quota (and functions.accountConcurrencyQuota) or reserve less (docs/deploy.md "Bulkheads").`,
    );
  }
}
