import { connect } from 'node:net';

/**
 * One HTTP/1.1 request written by hand, for what fetch will not send: repeated headers, odd
 * header values. Returns the status and the body.
 */
export function rawRequest(baseUrl: string, path: string, headerLines: string[]): Promise<{ status: number; body: string }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write([`GET ${url.pathname}${path} HTTP/1.1`, `Host: ${url.host}`, 'Connection: close', ...headerLines, '', ''].join('\r\n'));
    });
    let response = '';
    socket.on('data', (chunk) => {
      response += chunk.toString('utf8');
    });
    socket.on('error', reject);
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
      const body = response.slice(response.indexOf('\r\n\r\n') + 4);
      // The body may be chunked; the JSON sits between the chunk-size lines.
      const json = /\{[\s\S]*\}/.exec(body)?.[0] ?? body;
      resolve({ status, body: json });
    });
  });
}

export interface RawHttpRequest {
  method: string;
  /** The request target exactly as written on the request line (origin form, e.g. /functions/v1/grants-api?x=1). */
  target: string;
  /** Header lines as [name, value] pairs, sent in order and as given (no validation, no folding). */
  headers: readonly (readonly [string, string])[];
  /** Sent after the headers; Content-Length is added unless a header already sets it or Transfer-Encoding. */
  body?: string | Buffer;
  /** Gives up (rejects) after this long without the whole response. */
  timeoutMs?: number;
}

export interface RawHttpResponse {
  status: number;
  /** Header names lower-cased, every value kept. */
  headers: Record<string, string[]>;
  /** The decoded body (chunked transfer coding undone), as UTF-8. */
  body: string;
}

function decodeChunked(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1').split(';')[0]!.trim(), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Parses one whole HTTP/1.1 response (the connection was closed after it). */
export function parseRawResponse(data: Buffer, method: string): RawHttpResponse | null {
  const headerEnd = data.indexOf('\r\n\r\n');
  if (headerEnd < 0) return null;
  const lines = data.subarray(0, headerEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
  if (!status) return null;
  const headers: Record<string, string[]> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    (headers[line.slice(0, colon).trim().toLowerCase()] ??= []).push(line.slice(colon + 1).trim());
  }
  let bodyBytes = data.subarray(headerEnd + 4);
  if (method.toUpperCase() === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200)) bodyBytes = Buffer.alloc(0);
  else if ((headers['transfer-encoding'] ?? []).some((v) => v.toLowerCase().includes('chunked'))) bodyBytes = decodeChunked(bodyBytes);
  else if (headers['content-length']) bodyBytes = bodyBytes.subarray(0, Number(headers['content-length'][0]));
  return { status, headers, body: bodyBytes.toString('utf8') };
}

/**
 * Any HTTP/1.1 request, written byte for byte on a fresh connection (Connection: close): methods,
 * targets, header names and values that node:http and fetch refuse to send, bodies of any size.
 * Resolves with the parsed response; rejects when the connection ends without a whole one.
 * A 100 Continue interim response is skipped.
 */
export function rawHttp(baseUrl: string, request: RawHttpRequest): Promise<RawHttpResponse> {
  const url = new URL(baseUrl);
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
  const names = request.headers.map(([name]) => name.toLowerCase());
  const lines = [`${request.method} ${request.target} HTTP/1.1`, `Host: ${url.host}`, 'Connection: close'];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (body !== undefined && !names.includes('content-length') && !names.includes('transfer-encoding')) lines.push(`Content-Length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      let data = Buffer.concat(chunks);
      // Skip interim 1xx responses.
      while (/^HTTP\/1\.[01] 1\d\d/.test(data.subarray(0, 16).toString('latin1'))) {
        const end = data.indexOf('\r\n\r\n');
        if (end < 0) break;
        data = data.subarray(end + 4);
      }
      const parsed = parseRawResponse(data, request.method);
      if (parsed) resolve(parsed);
      else
        reject(error ?? new Error(`connection closed without a response (${data.length} bytes: ${JSON.stringify(data.subarray(0, 80).toString('latin1'))})`));
    };
    const timer = setTimeout(() => finish(new Error(`no whole response within ${request.timeoutMs ?? 30_000} ms`)), request.timeoutMs ?? 30_000);
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(head);
      if (body !== undefined && body.length > 0) socket.write(body);
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
    });
    // The server may answer and close before reading a large body: the response read so far counts.
    socket.on('error', (error) => finish(error));
    socket.on('end', () => finish());
    socket.on('close', () => finish());
  });
}
