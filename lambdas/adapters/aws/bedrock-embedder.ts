import { InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import { fullJitterDelayMs, sleepMs } from '../../core/retry/full-jitter';
import type { Embedder, VectorSpace } from '../../ports/embedder';

export const TITAN_TEXT_V2 = 'amazon.titan-embed-text-v2:0';
export const TITAN_DIMENSIONS = [256, 512, 1024] as const;
export type TitanDimensions = (typeof TITAN_DIMENSIONS)[number];

/** Titan Text Embeddings V2 refuses inputs over 50,000 characters (or 8,192 tokens). */
const MAX_INPUT_CHARS = 50_000;
/**
 * Failures that say "not now" rather than "never": the same request may succeed later. Besides
 * Bedrock's own (throttled, unavailable, model loading or timing out), the SDK's for a request
 * that got no answer: its timeout, and a connection refused, reset or cut.
 */
const TRANSIENT_ERROR_NAMES = new Set([
  'ThrottlingException',
  'ServiceUnavailableException',
  'ModelNotReadyException',
  'ModelTimeoutException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);
const TRANSIENT_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The one call the adapter makes: a BedrockRuntimeClient, or a test double. */
export interface BedrockRuntimeLike {
  send(command: InvokeModelCommand): Promise<{ body?: Uint8Array }>;
}

export interface BedrockEmbedderOptions {
  dimensions: TitanDimensions;
  /** Calls in flight at once (Titan embeds one text per call); default 8. */
  maxConcurrency?: number;
  /** Retries of a call after a transient failure; default 6. */
  retries?: number;
  /** The backoff ceiling before the first retry, doubled for each later one; default 200 ms. */
  baseDelayMs?: number;
  /** The largest backoff ceiling; default 20 s. */
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1): the jitter source. */
  random?: () => number;
}

/**
 * Titan Text Embeddings V2 over InvokeModel, one call per text with bounded concurrency. Transient
 * failures are retried with exponential backoff and full jitter, so a burst of throttling spreads
 * out instead of retrying in lockstep; a call that got no answer (a timeout, a connection reset)
 * is retried the same way. The SDK client's own retries multiply these, so the composition root
 * keeps them to one (aws-search.ts).
 * Errors never quote the text: it can hold personal data.
 */
export class BedrockEmbedder implements Embedder {
  readonly space: VectorSpace;
  private readonly maxConcurrency: number;
  private readonly retries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(
    private readonly client: BedrockRuntimeLike,
    options: BedrockEmbedderOptions,
  ) {
    if (!TITAN_DIMENSIONS.includes(options.dimensions)) {
      throw new Error(`Titan embedding dimensions must be one of ${TITAN_DIMENSIONS.join(', ')}, got ${options.dimensions}`);
    }
    this.space = { embedder: `bedrock:${TITAN_TEXT_V2}`, dimensions: options.dimensions };
    this.maxConcurrency = integerAtLeast(1, 'maxConcurrency', options.maxConcurrency ?? 8);
    this.retries = integerAtLeast(0, 'retries', options.retries ?? 6);
    this.baseDelayMs = options.baseDelayMs ?? 200;
    this.maxDelayMs = options.maxDelayMs ?? 20_000;
    this.sleep = options.sleep ?? sleepMs;
    this.random = options.random ?? Math.random;
  }

  async embed(texts: readonly string[]): Promise<(Float32Array | null)[]> {
    return mapWithConcurrency(texts, this.maxConcurrency, (text, position) =>
      text.trim() === '' ? Promise.resolve(null) : this.embedOne(text, position, texts.length),
    );
  }

  private async embedOne(text: string, position: number, count: number): Promise<Float32Array> {
    const body = JSON.stringify({ inputText: truncated(text), dimensions: this.space.dimensions, normalize: true });
    const command = new InvokeModelCommand({ modelId: TITAN_TEXT_V2, contentType: 'application/json', accept: 'application/json', body });
    const which = `text ${position + 1} of ${count}`;
    for (let attempt = 1; ; attempt++) {
      let response: { body?: Uint8Array };
      try {
        response = await this.client.send(command);
      } catch (error) {
        const transient = isTransient(error);
        if (!transient || attempt > this.retries) {
          const outcome = transient ? `gave up after ${attempt} attempts` : 'failed';
          throw new Error(`Bedrock ${TITAN_TEXT_V2} ${outcome} embedding ${which}: ${describeError(error)}`, { cause: error });
        }
        await this.sleep(this.backoffMs(attempt));
        continue;
      }
      return this.vectorOf(response.body, which);
    }
  }

  private backoffMs(attempt: number): number {
    return fullJitterDelayMs(attempt, { baseMs: this.baseDelayMs, maxMs: this.maxDelayMs }, this.random);
  }

  private vectorOf(body: Uint8Array | undefined, which: string): Float32Array {
    let embedding: unknown;
    try {
      embedding = (JSON.parse(new TextDecoder().decode(body)) as { embedding?: unknown }).embedding;
    } catch {
      throw new Error(`Bedrock ${TITAN_TEXT_V2} answered ${which} with a body that is not JSON`);
    }
    const { dimensions } = this.space;
    if (!Array.isArray(embedding) || embedding.length !== dimensions || !embedding.every((value) => Number.isFinite(value))) {
      throw new Error(`Bedrock ${TITAN_TEXT_V2} answered ${which} without an embedding of ${dimensions} finite numbers`);
    }
    // Titan normalises already; dividing again costs nothing and guards the cosine arithmetic downstream.
    const norm = Math.hypot(...(embedding as number[]));
    if (norm === 0) throw new Error(`Bedrock ${TITAN_TEXT_V2} answered ${which} with a zero vector`);
    return Float32Array.from(embedding as number[], (value) => value / norm);
  }
}

/** Cut at the model's limit, never between the two halves of a surrogate pair. */
function truncated(text: string): string {
  if (text.length <= MAX_INPUT_CHARS) return text;
  const end = /[\ud800-\udbff]/.test(text.charAt(MAX_INPUT_CHARS - 1)) ? MAX_INPUT_CHARS - 1 : MAX_INPUT_CHARS;
  return text.slice(0, end);
}

interface ServiceError {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

function isTransient(error: unknown): boolean {
  const { name, code, $metadata } = (error ?? {}) as ServiceError;
  const status = $metadata?.httpStatusCode;
  return TRANSIENT_ERROR_NAMES.has(name ?? '') || TRANSIENT_NETWORK_CODES.has(code ?? '') || status === 429 || (status !== undefined && status >= 500);
}

/** The error's name and HTTP status only: a service message may echo the input. */
function describeError(error: unknown): string {
  const { name, $metadata } = (error ?? {}) as ServiceError;
  const status = $metadata?.httpStatusCode;
  return `${name ?? 'Error'}${status === undefined ? '' : ` (HTTP ${status})`}`;
}

function integerAtLeast(minimum: number, name: string, value: number): number {
  if (!Number.isInteger(value) || value < minimum) throw new Error(`${name} must be an integer of at least ${minimum}, got ${value}`);
  return value;
}

/** Runs `task` over every item with at most `limit` running at once; stops starting new ones after a failure. */
async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await task(items[index]!, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
