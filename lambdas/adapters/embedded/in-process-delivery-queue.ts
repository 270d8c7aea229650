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
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
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
    return this.timers.size + this.running.size;
  }

  /** Resolves once no message is being handled (timers may still be waiting). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private schedule(message: DeliveryMessage, delayMs: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const run = this.run(message).finally(() => this.running.delete(run));
      this.running.add(run);
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
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
