/** Name resolution for webhook destinations (the system resolver; a fixed table in tests). */
export interface HostResolver {
  /** Every address the host resolves to; an error when it does not resolve. */
  resolve(host: string): Promise<string[]>;
}
