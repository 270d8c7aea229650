import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Secrets Manager's GetSecretValue and PutSecretValue (the AWS JSON 1.1 protocol) over HTTP on a
 * random port, for the SDK pointed at it by AWS_ENDPOINT_URL_SECRETS_MANAGER: holds secrets by id
 * and records what was asked. Only what the list functions (the cursor key) and `admin canary
 * provision` call; anything else is a 400 as the service answers an unknown operation.
 */
export interface StandInSecretsManager {
  endpoint: string;
  /** Each request's X-Amz-Target and SecretId, in order. */
  requests: { target: string | undefined; secretId: unknown; signed: boolean }[];
  /** The current value of each secret, PutSecretValue's included. */
  secrets: Map<string, string>;
  close(): Promise<void>;
}

export async function startStandInSecretsManager(secrets: Readonly<Record<string, string>>): Promise<StandInSecretsManager> {
  const requests: StandInSecretsManager['requests'] = [];
  const current = new Map(Object.entries(secrets));
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const target = req.headers['x-amz-target'] as string | undefined;
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { SecretId?: string; SecretString?: string };
      requests.push({ target, secretId: body.SecretId, signed: String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256') });
      const secret = body.SecretId !== undefined ? current.get(body.SecretId) : undefined;
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (target === 'secretsmanager.PutSecretValue' && secret !== undefined && body.SecretString !== undefined) {
        current.set(body.SecretId!, body.SecretString);
        res.writeHead(200).end(JSON.stringify({ ARN: body.SecretId, Name: 'secret', VersionId: `v${requests.length}`, VersionStages: ['AWSCURRENT'] }));
      } else if (target !== 'secretsmanager.GetSecretValue' && target !== 'secretsmanager.PutSecretValue') {
        res.writeHead(400).end(JSON.stringify({ __type: 'UnknownOperationException', message: `${target} is not served here` }));
      } else if (secret === undefined) {
        res.writeHead(400).end(JSON.stringify({ __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." }));
      } else {
        res.writeHead(200).end(
          JSON.stringify({
            ARN: body.SecretId,
            Name: 'cursor-key',
            SecretString: secret,
            VersionId: 'v1',
            VersionStages: ['AWSCURRENT'],
            CreatedDate: 1_700_000_000,
          }),
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    secrets: current,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
