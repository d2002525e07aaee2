import http from 'node:http';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

export const LISTEN_USAGE = `  gateway webhooks listen [--port 4000] [--secret whsec_...]
                                               a local webhook receiver: prints every webhook, verified with the secret`;

/**
 * `gateway webhooks listen`: a small receiver for trying the gateway on one machine. Every POST is
 * verified per Standard Webhooks with the endpoint's secret (when given) and printed as one line:
 * time, verdict, event name, webhook id, then the body. Answers 204, or 401 when verification fails.
 */
export async function listenCommand(args: string[], out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      port: { type: 'string', default: '4000' },
      host: { type: 'string', default: '127.0.0.1' },
      secret: { type: 'string' },
    },
  });
  if (sub !== 'listen' || !/^\d+$/.test(values.port)) {
    process.stderr.write(`gateway: usage:\n${LISTEN_USAGE}\n`);
    return 2;
  }
  let verifier: Webhook | null = null;
  if (values.secret !== undefined && values.secret !== '') {
    try {
      verifier = new Webhook(values.secret);
    } catch (error) {
      process.stderr.write(`gateway: --secret is not a webhook secret (whsec_...): ${(error as Error).message}\n`);
      return 2;
    }
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      let verdict = 'unverified (no --secret)';
      if (verifier !== null) {
        try {
          verifier.verify(body, headers);
          verdict = 'verified';
        } catch {
          verdict = 'SIGNATURE INVALID';
        }
      }
      out.write(`${new Date().toISOString()} ${verdict} ${eventName(body)} ${headers['webhook-id']}\n${body}\n`);
      res.statusCode = verdict === 'SIGNATURE INVALID' ? 401 : 204;
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(values.port), values.host, () => resolve());
  });
  out.write(`listening for webhooks on http://${values.host}:${values.port}/ (Ctrl-C stops)\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  server.close();
  return 0;
}

/** `message.update`, `channel.qr_code`, `channel.state` (a v1 system notice), `job.executed`, `webhook_url.test`: what the body is. */
function eventName(body: string): string {
  try {
    const parsed = JSON.parse(body) as { type?: string; event?: string; entity?: string; operation?: string };
    if (parsed.entity === 'channel') return `channel.${parsed.type === 'system' ? 'state' : parsed.type}`;
    if (parsed.operation === 'test') return 'webhook_url.test';
    return `${parsed.type}.${parsed.event}`;
  } catch {
    return '(not JSON)';
  }
}
