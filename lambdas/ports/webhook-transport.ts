/** One delivery attempt: a signed POST to a destination whose addresses were already checked. */
export interface WebhookAttempt {
  url: string;
  /** The addresses the destination policy allowed; the connection goes to one of these, never to a fresh lookup's answer. */
  addresses: readonly string[];
  body: string;
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
}

export interface AttemptResult {
  /** The receiver's status code; null when no answer came (timeout, refused, reset). */
  status: number | null;
  retryAfter: string | null;
  /** The start of the answer's body (capped), for the delivery log. */
  responseExcerpt: string;
  latencyMs: number;
  /** Why no answer came, when none did. */
  error: string | null;
}

export interface WebhookTransport {
  send(attempt: WebhookAttempt): Promise<AttemptResult>;
}
