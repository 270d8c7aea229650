/**
 * The synthetic check: what a customer does, against a deployed stage (or the local server). A
 * keyword search on /grants-api with an API key, a GET of one record it returned, and the public
 * OpenAPI document. Any non-2xx answer, a wrong shape or an empty search fails it with a message
 * that names the step and the request, and never the key.
 */

export interface ApiCheckOptions {
  /** The interface's {base_url}: the version root, e.g. https://abc.execute-api.eu-west-1.amazonaws.com/functions/v1 */
  readonly baseUrl: string;
  /** A key of a tier with API access, sent as `Authorization: Bearer <key>`. */
  readonly apiKey: string;
  /** What the keyword search looks for; the stage's catalogue must have grants that match it. */
  readonly searchTerm: string;
  /** Each request's time limit. */
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

/** Runs one named step; the Synthetics runtime's executeStep, or a plain call. */
export type StepRunner = <T>(name: string, step: () => Promise<T>) => Promise<T>;

export const runPlainStep: StepRunner = (_name, step) => step();

/** What a passing check saw. */
export interface ApiCheckResult {
  readonly searchTotal: number;
  readonly grantId: string;
  readonly openApiVersion: string;
}

/** A failed step: the message names the step and the request, and holds no credential. */
export class ApiCheckFailure extends Error {
  override readonly name = 'ApiCheckFailure';
}

export const API_CHECK_STEPS = { search: 'search grants', get: 'get one grant', openApi: 'get the OpenAPI document' } as const;

const DEFAULT_TIMEOUT_MS = 10_000;
/** How much of an unexpected answer's body goes into the failure message. */
const BODY_EXCERPT_CHARS = 300;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `text` with every occurrence of `secret` replaced, so no message or log carries the key. */
export function masked(text: string, secret: string): string {
  return secret.length === 0 ? text : text.split(secret).join('****');
}

export async function runApiCheck(options: ApiCheckOptions, runStep: StepRunner = runPlainStep): Promise<ApiCheckResult> {
  if (options.apiKey.trim() === '') throw new ApiCheckFailure('No API key to check with: provision the canary key first (docs/deploy.md).');
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  /** GET `path`; the parsed JSON body of a 2xx JSON answer, or an ApiCheckFailure naming `step`. */
  const getJson = async (step: string, path: string, authenticated: boolean): Promise<Json> => {
    const where = `${step}: GET ${path}`;
    let response: Response;
    try {
      response = await doFetch(`${baseUrl}${path}`, {
        headers: { Accept: 'application/json', ...(authenticated ? { Authorization: `Bearer ${options.apiKey}` } : {}) },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new ApiCheckFailure(masked(`${where} got no answer (${reason})`, options.apiKey));
    }
    const text = await response.text();
    if (response.status < 200 || response.status > 299) {
      throw new ApiCheckFailure(masked(`${where} answered ${response.status}, expected 2xx: ${text.slice(0, BODY_EXCERPT_CHARS)}`, options.apiKey));
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ApiCheckFailure(
        masked(`${where} answered ${response.status} with a body that is not JSON: ${text.slice(0, BODY_EXCERPT_CHARS)}`, options.apiKey),
      );
    }
    if (!isObject(body)) throw new ApiCheckFailure(`${where} answered a JSON ${Array.isArray(body) ? 'array' : typeof body}, expected an object`);
    return body;
  };

  const searchPath = `/grants-api?search=${encodeURIComponent(options.searchTerm)}&search_mode=keyword&limit=5`;
  const search = await runStep(API_CHECK_STEPS.search, async () => {
    const body = await getJson(API_CHECK_STEPS.search, searchPath, true);
    const where = `${API_CHECK_STEPS.search}: GET ${searchPath}`;
    const { results, pagination } = body;
    if (!Array.isArray(results) || !isObject(pagination) || typeof pagination.total !== 'number') {
      throw new ApiCheckFailure(`${where} answered without the list envelope (results, pagination.total)`);
    }
    if (results.length === 0) throw new ApiCheckFailure(`${where} found no grants: the search index is empty or not answering keyword searches`);
    const first = results[0];
    if (!isObject(first) || typeof first.id !== 'string' || !UUID_PATTERN.test(first.id)) {
      throw new ApiCheckFailure(`${where} answered a first result without a UUID id`);
    }
    return { total: pagination.total, id: first.id };
  });

  await runStep(API_CHECK_STEPS.get, async () => {
    const path = `/grants-api/${search.id}`;
    const body = await getJson(API_CHECK_STEPS.get, path, true);
    if (body.id !== search.id || typeof body.title !== 'string') {
      throw new ApiCheckFailure(`${API_CHECK_STEPS.get}: GET ${path} answered a body that is not the grant the search returned`);
    }
  });

  const openApiVersion = await runStep(API_CHECK_STEPS.openApi, async () => {
    const body = await getJson(API_CHECK_STEPS.openApi, '/openapi.json', false);
    if (typeof body.openapi !== 'string' || !isObject(body.paths) || !('/grants-api' in body.paths)) {
      throw new ApiCheckFailure(`${API_CHECK_STEPS.openApi}: GET /openapi.json answered a document without openapi and the /grants-api path`);
    }
    return body.openapi;
  });

  return { searchTotal: search.total, grantId: search.id, openApiVersion };
}
