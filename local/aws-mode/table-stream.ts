import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';

/**
 * The records table's stream on one machine (StreamProxy appends to it) and the event source
 * mappings that feed it to functions, with the settings lib/ gives them: a batch size, a batching
 * window, a filter, partial batch responses (the checkpoint moves to the first reported failure),
 * bisection of a batch whose invocation fails, and a number of retries after which the batch is
 * given up (in AWS: sent to the failure queue, so the shard moves on). The stream lives in memory:
 * what a stopped process had not handed over is not replayed (the local AWS mode rebuilds the
 * search index from the table when it starts on a fresh one).
 */

// biome-ignore lint/suspicious/noConfusingVoidType: the Lambda handler type, whose result is optional
export type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;

export class TableStream {
  private records: DynamoDBRecord[] = [];
  /** Stream position of records[0]. */
  private base = 0;
  private waiters: (() => void)[] = [];
  private readonly mappings: StreamEventSource[] = [];

  append(records: readonly DynamoDBRecord[]): void {
    this.records.push(...records);
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** The oldest position the stream still holds. */
  get start(): number {
    return this.base;
  }

  get end(): number {
    return this.base + this.records.length;
  }

  read(from: number, max: number): DynamoDBRecord[] {
    return this.records.slice(from - this.base, from - this.base + max);
  }

  /** Resolves once the stream has grown past `position`, or after `ms`. */
  waitBeyond(position: number, ms: number): Promise<void> {
    if (this.end > position) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.push(done);
    });
  }

  /** Drops what every mapping has read. */
  trim(): void {
    const oldest = Math.min(...this.mappings.map((m) => m.position), this.end);
    this.records.splice(0, oldest - this.base);
    this.base = oldest;
  }

  connect(mapping: StreamEventSource): void {
    this.mappings.push(mapping);
  }

  /** Resolves when every mapping has handled everything written so far (seeding waits for the index). */
  async drained(pollMs = 50): Promise<void> {
    const target = this.end;
    while (this.mappings.some((m) => m.position < target || m.busy)) await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

export interface StreamEventSourceOptions {
  name: string;
  batchSize: number;
  maxBatchingWindowMs: number;
  /** The mapping's filter criteria: records it drops count as handled. */
  filter: (record: DynamoDBRecord) => boolean;
  retryAttempts: number;
  bisectBatchOnError: boolean;
  /** A batch given up after its retries (AWS: its pointers go to the failure queue). */
  onGivenUp: (records: readonly DynamoDBRecord[], error: unknown) => void;
  onError: (error: unknown, records: readonly DynamoDBRecord[]) => void;
}

const retryDelayMs = (attempt: number) => Math.min(30_000, 500 * 2 ** (attempt - 1));

export class StreamEventSource {
  position: number;
  busy = false;
  private stopped = false;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly stream: TableStream,
    private readonly handler: StreamHandler,
    private readonly context: () => Context,
    private readonly options: StreamEventSourceOptions,
  ) {
    // TRIM_HORIZON: from the oldest record the stream still holds.
    this.position = stream.start;
    stream.connect(this);
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Finishes the batch under way, then stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      await this.stream.waitBeyond(this.position, 500);
      if (this.stream.end <= this.position) continue;
      // The batching window: wait for a full batch, or until the window closes.
      if (this.stream.end - this.position < this.options.batchSize) await new Promise((resolve) => setTimeout(resolve, this.options.maxBatchingWindowMs));
      const raw = this.stream.read(this.position, this.options.batchSize);
      const batch = raw.filter(this.options.filter);
      this.busy = true;
      try {
        if (batch.length > 0) await this.deliver(batch, 0);
      } finally {
        this.position += raw.length;
        this.busy = false;
        this.stream.trim();
      }
    }
  }

  private async deliver(records: DynamoDBRecord[], attempt: number): Promise<void> {
    let pending = records;
    for (;;) {
      let error: unknown;
      try {
        const response = await this.handler({ Records: pending }, this.context());
        const failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        if (failed.size === 0) return;
        // The checkpoint moves to the first failure; the records after it are handed over again with it.
        const first = pending.findIndex((r) => failed.has(r.dynamodb?.SequenceNumber ?? ''));
        pending = first < 0 ? pending : pending.slice(first);
        error = new Error(`${failed.size} record(s) reported as failed`);
      } catch (thrown) {
        error = thrown;
        if (this.options.bisectBatchOnError && pending.length > 1 && attempt < this.options.retryAttempts) {
          const half = Math.ceil(pending.length / 2);
          this.options.onError(error, pending);
          await this.deliver(pending.slice(0, half), attempt + 1);
          await this.deliver(pending.slice(half), attempt + 1);
          return;
        }
      }
      this.options.onError(error, pending);
      attempt += 1;
      if (attempt > this.options.retryAttempts || this.stopped) {
        this.options.onGivenUp(pending, error);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
    }
  }
}
