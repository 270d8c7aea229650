import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { RESPONSE_BODY_LIMIT } from '../core/webhooks/delivery-policy';
import type { AttemptResult, WebhookAttempt, WebhookTransport } from '../ports/webhook-transport';

/**
 * Webhook POSTs with node:http(s). The connection goes to an address the destination policy
 * checked (a custom lookup), so a name that resolves elsewhere between the check and the connect
 * (DNS rebinding) cannot redirect it; TLS still verifies the certificate against the host name.
 * Redirects are never followed, the whole attempt is cut off at the timeout, and at most
 * RESPONSE_BODY_LIMIT bytes of the answer are read, so a hanging, huge or garbage answer costs
 * the sender nothing but the attempt.
 */
export const httpWebhookTransport: WebhookTransport = {
  send(attempt: WebhookAttempt): Promise<AttemptResult> {
    const started = performance.now();
    const url = new URL(attempt.url);
    const pinned = attempt.addresses[0];
    const lookup: LookupFunction = (_host, options, callback) => {
      const address = pinned ?? '';
      const family = isIP(address) || 4;
      if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const finish = (result: Omit<AttemptResult, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve({ ...result, latencyMs: Math.round((performance.now() - started) * 100) / 100 });
      };
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(
        url,
        {
          method: 'POST',
          headers: { ...attempt.headers, 'Content-Length': String(Buffer.byteLength(attempt.body)) },
          lookup,
          agent: false,
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const done = () =>
            finish({
              status: res.statusCode ?? null,
              retryAfter: typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : null,
              responseExcerpt: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8'),
              error: null,
            });
          res.on('data', (chunk: Buffer) => {
            if (size < RESPONSE_BODY_LIMIT) chunks.push(chunk);
            size += chunk.length;
            // Enough read: the verdict needs only the status; drop the rest of a huge answer.
            if (size >= RESPONSE_BODY_LIMIT) {
              done();
              res.destroy();
            }
          });
          res.on('end', done);
          res.on('error', done);
          res.on('close', done);
        },
      );
      const deadline = setTimeout(() => {
        finish({ status: null, retryAfter: null, responseExcerpt: '', error: `no answer within ${attempt.timeoutMs} ms` });
        req.destroy();
      }, attempt.timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => finish({ status: null, retryAfter: null, responseExcerpt: '', error: error.code ?? error.message }));
      req.end(attempt.body);
    });
  },
};
