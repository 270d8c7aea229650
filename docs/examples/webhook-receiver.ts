// A webhook receiver for this service (docs/webhooks.md, "Verifying a delivery"), tested by
// test/integration/webhook-receiver-example.test.ts. It checks the Standard Webhooks signature with
// the standardwebhooks package: the event id, the timestamp (within 5 minutes) and the raw body
// are signed together, so a captured delivery cannot be replayed later, under another id, or with
// another body. Then it dedupes on the event id: delivery is at least once.
import { createServer, type Server } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export interface ReceivedEvent {
  id: string;
  event: string;
  data: { id: string };
}

/**
 * `secret`: the subscription's `whsec_…` secret. `handle` gets each event once; answer quickly
 * (hand off to a queue) since any 2xx within 10 s counts as delivered. `seen` remembers the ids
 * handled: use a durable store with a TTL of a few days in production.
 */
export function webhookReceiver(secret: string, handle: (event: ReceivedEvent) => void, seen = new Set<string>()): Server {
  const webhook = new Webhook(secret);
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let payload: { event: string; data: { id: string } };
      try {
        payload = webhook.verify(body, req.headers as Record<string, string>) as typeof payload;
      } catch (error) {
        // A bad or missing signature, or a timestamp more than 5 minutes off: not from the service, or a replay.
        res.writeHead(error instanceof WebhookVerificationError ? 401 : 400).end();
        return;
      }
      const id = String(req.headers['webhook-id']);
      if (!seen.has(id)) {
        seen.add(id);
        handle({ id, event: payload.event, data: payload.data });
      }
      res.writeHead(204).end();
    });
  });
}

// Run it: GCF_WEBHOOK_SECRET=whsec_… npx tsx docs/examples/webhook-receiver.ts
if (import.meta.url === `file://${process.argv[1]}`) {
  webhookReceiver(process.env.GCF_WEBHOOK_SECRET!, (e) => console.log(e.event, e.data.id)).listen(8080);
}
