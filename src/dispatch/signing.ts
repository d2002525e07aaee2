import { createHmac, createSecretKey, sign as signWith, type KeyObject } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { ed25519PrivateKey, SIGNING_KEY_PREFIX } from '../lib/signing-keys.js';

/**
 * How one secret signs: node:crypto's HMAC with the decoded key (about a quarter of the CPU of the
 * package's pure-JS SHA-256), or, for a secret that is not canonical base64 after `whsec_`, the
 * standardwebhooks package itself, so that such a secret signs (or fails) exactly as it would
 * there; a `whsk_` key signs with node:crypto's ed25519 (Standard Webhooks `v1a`).
 */
type Signer = { key: KeyObject } | { webhook: Webhook } | { ed25519: KeyObject };

const PREFIX = 'whsec_';
/** Secrets seen recently; an endpoint's secret changes only on rotation, so few are live at once. */
const signers = new Map<string, Signer>();
const MAX_SIGNERS = 1024;

function signerOf(secret: string): Signer {
  let signer = signers.get(secret);
  if (signer === undefined) {
    if (secret.startsWith(SIGNING_KEY_PREFIX)) return remember(secret, { ed25519: ed25519PrivateKey(secret) });
    // standardwebhooks strips the prefix and base64-decodes the rest (strictly, refusing an empty key).
    const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
    const key = Buffer.from(encoded, 'base64');
    signer =
      key.length > 0 && key.toString('base64') === encoded
        ? { key: createSecretKey(key) }
        : { webhook: new Webhook(secret) };
    remember(secret, signer);
  }
  return signer;
}

function remember(secret: string, signer: Signer): Signer {
  // Oldest first out: a daemon with more live secrets than this only decodes some of them again.
  if (signers.size >= MAX_SIGNERS) signers.delete(signers.keys().next().value!);
  signers.set(secret, signer);
  return signer;
}

/**
 * `v1,<base64 HMAC-SHA256 of id.seconds.body>`: what standardwebhooks' `Webhook.sign` gives; for a
 * `whsk_` key `v1a,<base64 ed25519 signature of id.seconds.body>`.
 */
function sign(secret: string, id: string, seconds: number, body: string, timestamp: Date): string {
  const signer = signerOf(secret);
  if ('webhook' in signer) return signer.webhook.sign(id, timestamp, body);
  if ('ed25519' in signer)
    return `v1a,${signWith(null, Buffer.from(`${id}.${seconds}.${body}`), signer.ed25519).toString('base64')}`;
  return `v1,${createHmac('sha256', signer.key).update(`${id}.${seconds}.${body}`).digest('base64')}`;
}

/**
 * Standard Webhooks headers for one attempt: `webhook-signature` holds one `v1,<base64>` (or
 * `v1a,<base64>` for an ed25519 key) per secret (two during a rotation), signed over
 * `id.timestamp.body` with the raw body bytes sent.
 */
export function signatureHeaders(
  id: string,
  timestamp: Date,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  const seconds = Math.floor(timestamp.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': secrets.map((secret) => sign(secret, id, seconds, body, timestamp)).join(' '),
  };
}
