import { createHash } from 'node:crypto';
import { createServer as createHttp1Server, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { readBody } from './stand-in-opensearch';

/**
 * A stand-in for Bedrock Runtime on loopback (point AWS_ENDPOINT_URL_BEDROCK_RUNTIME at it; it
 * speaks cleartext HTTP/2, as today's Bedrock Runtime client does by default, or HTTP/1.1, as older
 * releases such as a Lambda runtime's do): it
 * answers InvokeModel for Titan Text Embeddings V2 with a unit vector derived from the text's hash
 * (deterministic, meaningless) and records each request. Not a model.
 */
export interface StandInBedrock {
  endpoint: string;
  requests: { path: string; body: { inputText: string; dimensions: number; normalize: boolean }; authorization?: string }[];
  close(): Promise<void>;
}

export async function startStandInBedrock(protocol: 'http2' | 'http1' = 'http2'): Promise<StandInBedrock> {
  const requests: StandInBedrock['requests'] = [];
  const answer = async (request: IncomingMessage | Http2ServerRequest, response: ServerResponse | Http2ServerResponse) => {
    const body = JSON.parse(await readBody(request)) as StandInBedrock['requests'][number]['body'];
    requests.push({ path: new URL(request.url!, 'http://x').pathname, body, authorization: request.headers.authorization });
    const bytes = createHash('sha256').update(body.inputText).digest();
    const raw = Array.from({ length: body.dimensions }, (_, i) => bytes[i % bytes.length]! - 127.5 + i / body.dimensions);
    const norm = Math.hypot(...raw);
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ embedding: raw.map((x) => x / norm), inputTextTokenCount: body.inputText.split(/\s+/).length }));
  };
  const server = protocol === 'http2' ? createServer(answer) : createHttp1Server(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
