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
    socket.on('data', (chunk) => { response += chunk.toString('utf8'); });
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
