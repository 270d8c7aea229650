import type { DeliveryMessage, DeliveryQueue } from '../../ports/delivery-queue';

/**
 * The local stand-in for SQS: delayed messages on timers, handled one at a time per message, with
 * the same 900 s longest delay (longer waits re-send, as in AWS). A handler that throws gets the
 * message again after `redeliverAfterMs`, as SQS redelivers after the visibility timeout. Messages
 * live in memory; the delivery log is the durable state a restart recovers from.
 */
export class InProcessDeliveryQueue implements DeliveryQueue {
  readonly maxDelaySeconds = 900;
  readonly deadLetters: DeliveryMessage[] = [];
  /** Messages waiting on their timers. */
  private readonly waiting = new Map<NodeJS.Timeout, DeliveryMessage>();
  private readonly running = new Map<Promise<void>, DeliveryMessage>();
  private handler: ((message: DeliveryMessage) => Promise<void>) | null = null;
  private closed = false;

  constructor(private readonly options: { redeliverAfterMs: number; onError: (error: unknown, message: DeliveryMessage) => void }) {}

  /** Starts handing messages to the handler (queued ones included). */
  consume(handler: (message: DeliveryMessage) => Promise<void>): void {
    this.handler = handler;
  }

  async send(message: DeliveryMessage, delaySeconds: number): Promise<void> {
    this.schedule(message, Math.max(0, delaySeconds) * 1000);
  }

  async deadLetter(message: DeliveryMessage): Promise<void> {
    this.deadLetters.push(message);
  }

  /** Messages waiting or being handled. */
  get size(): number {
    return this.waiting.size + this.running.size;
  }

  /** The messages waiting or being handled, as a clean stop hands them to the next start. */
  messages(): DeliveryMessage[] {
    return [...this.waiting.values(), ...this.running.values()];
  }

  /** Resolves once no message is being handled (timers may still be waiting). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.keys()]);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.waiting.keys()) clearTimeout(timer);
    this.waiting.clear();
  }

  private schedule(message: DeliveryMessage, delayMs: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.waiting.delete(timer);
      const run = this.run(message).finally(() => this.running.delete(run));
      this.running.set(run, message);
    }, delayMs);
    timer.unref();
    this.waiting.set(timer, message);
  }

  private async run(message: DeliveryMessage): Promise<void> {
    if (!this.handler) {
      this.schedule(message, this.options.redeliverAfterMs);
      return;
    }
    try {
      await this.handler(message);
    } catch (error) {
      this.options.onError(error, message);
      this.schedule(message, this.options.redeliverAfterMs);
    }
  }
}
