import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Holds every response the integration suite gets to docs/openapi.json (the committed document
 * clients generate from), so a drift between what we send and what we document fails the build.
 * A response conforms when its operation documents its status code, its content type, and every
 * header marked required, and its JSON body validates (JSON Schema 2020-12, formats checked).
 */

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
  headers?: Record<string, { required?: boolean }>;
}
interface Operation {
  operationId: string;
  responses: Record<string, ResponseObject>;
}
interface Webhook {
  operationId: string;
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody: { content: Record<string, MediaType> };
}
interface OpenApiDocument {
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, { post: Webhook }>;
  components: { schemas: Record<string, unknown> };
}

const DOCUMENT_URL = new URL('../../docs/openapi.json', import.meta.url);
// ajv-formats is CommonJS with a default export; under ESM interop the plugin may sit on .default.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

export class OpenApiConformance {
  private readonly document: OpenApiDocument;
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly basePath: string;

  constructor(document: OpenApiDocument = JSON.parse(readFileSync(DOCUMENT_URL, 'utf8'))) {
    this.document = document;
    this.basePath = document.servers[0]?.url ?? '';
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi.json', components: document.components }, 'openapi.json');
  }

  /** The operation a request reaches, by method and the path's template; undefined when none. */
  operationOf(method: string, urlPath: string): { template: string; operation: Operation } | undefined {
    const path = urlPath.split('?')[0]!;
    if (!path.startsWith(this.basePath)) return undefined;
    const relative = path.slice(this.basePath.length) || '/';
    for (const [template, item] of Object.entries(this.document.paths)) {
      const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      const operation = item[method.toLowerCase()];
      if (operation && pattern.test(relative)) return { template, operation };
    }
    return undefined;
  }

  /**
   * The problems with one response, in words; empty when it conforms. `urlPath` is the path the
   * server saw (the base path included); paths the document does not describe are not checked.
   */
  problems(method: string, urlPath: string, status: number, headers: Headers, body: unknown): string[] {
    const found = this.operationOf(method, urlPath);
    if (!found) return [];
    const { template, operation } = found;
    const where = `${method.toUpperCase()} ${template} -> ${status}`;
    const response = operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.default;
    if (!response) return [`${where}: status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`];
    const issues: string[] = [];
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      if (header.required && !headers.has(name)) issues.push(`${where}: required header ${name} is missing`);
    }
    const contentType = (headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (!response.content) {
      if (contentType && body !== '') issues.push(`${where}: a body of ${contentType} where none is documented`);
      return issues;
    }
    const media = response.content[contentType];
    if (!media)
      return [...issues, `${where}: content type ${contentType || '(none)'} is not documented (documented: ${Object.keys(response.content).join(', ')})`];
    if (contentType !== 'application/json' || media.schema === undefined) return issues;
    const validate = this.validatorFor(`${operation.operationId} ${status}`, media.schema);
    if (!validate(body)) {
      issues.push(`${where}: the body does not match the schema: ${this.ajv.errorsText(validate.errors, { separator: '; ', dataVar: 'body' })}`);
    }
    return issues;
  }

  /**
   * The problems with one webhook delivery as a receiver gets it (header names in any case),
   * against the document's webhooks section: the event is documented, every header it documents
   * is there and no other (HTTP's own aside: Content-Type, Content-Length, Host, Connection), and
   * the body validates.
   */
  webhookProblems(headers: Readonly<Record<string, string | string[] | undefined>>, body: unknown): string[] {
    const event = (body as { event?: unknown } | null)?.event;
    const webhook = typeof event === 'string' ? this.document.webhooks?.[event]?.post : undefined;
    if (!webhook) return [`webhook ${String(event)} is not documented (documented: ${Object.keys(this.document.webhooks ?? {}).join(', ')})`];
    const sent = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
    const documented = (webhook.parameters ?? []).filter((p) => p.in === 'header');
    const issues = documented.filter((p) => p.required && !sent.has(p.name.toLowerCase())).map((p) => `webhook ${event}: required header ${p.name} is missing`);
    const known = new Set(['content-type', 'content-length', 'host', 'connection', ...documented.map((p) => p.name.toLowerCase())]);
    issues.push(...[...sent].filter((name) => !known.has(name)).map((name) => `webhook ${event}: header ${name} is not documented`));
    const validate = this.validatorFor(`${webhook.operationId} request`, webhook.requestBody.content['application/json']?.schema);
    if (!validate(body))
      issues.push(`webhook ${event}: the body does not match the schema: ${this.ajv.errorsText(validate.errors, { separator: '; ', dataVar: 'body' })}`);
    return issues;
  }

  /** Throws with every problem of one response. */
  assertConforms(method: string, urlPath: string, status: number, headers: Headers, body: unknown): void {
    const problems = this.problems(method, urlPath, status, headers, body);
    if (problems.length > 0) throw new Error(`The response does not conform to docs/openapi.json:\n${problems.join('\n')}`);
  }

  private validatorFor(key: string, schema: unknown): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      // Refs point into the document's components; rewrite them to the registered document's id.
      const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'));
      validate = this.ajv.compile(rebased);
      this.validators.set(key, validate);
    }
    return validate;
  }
}

let shared: OpenApiConformance | undefined;

/** One validator per test file (the document is read and compiled once). */
export function openApiConformance(): OpenApiConformance {
  shared ??= new OpenApiConformance();
  return shared;
}

/**
 * fetch, with the answer checked against docs/openapi.json (for tests that speak HTTP to the
 * server without TestApi); the response is returned unread.
 */
export async function conformingFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  const text = await response.clone().text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: the content type check says whether that was documented.
  }
  openApiConformance().assertConforms(init.method ?? 'GET', new URL(response.url).pathname, response.status, response.headers, body);
  return response;
}
