/** The environment the canary runs with: set by lib/constructs/api-canary.ts, read by handler.ts. */
export const CANARY_ENV = {
  /** The interface's {base_url} the check calls. */
  apiBaseUrl: 'CANARY_API_BASE_URL',
  /** The secret holding the canary's key (CanaryKeySecret JSON). */
  keySecretArn: 'CANARY_KEY_SECRET_ARN',
  /** What the keyword search looks for. */
  searchTerm: 'CANARY_SEARCH_TERM',
} as const;
