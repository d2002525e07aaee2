// The Standard Webhooks `v1a` (ed25519) verification, written from the specification with
// node:crypto: no verifier on npm supports `v1a` (standardwebhooks 1.1.1 and svix 2.5.0 check
// `v1` only), so the tests verify asymmetric deliveries the way the specification says a receiver
// does. A receiver of the gateway's deliveries may use exactly this.
import { createPublicKey, verify } from 'node:crypto';

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const TOLERANCE_SECONDS = 5 * 60;

/**
 * Verifies a delivery with a `whpk_` public key: the three headers must be there, the timestamp
 * within 5 minutes of `nowSeconds`, and one of the space-separated `v1a,<base64>` signatures an
 * ed25519 signature of `<webhook-id>.<webhook-timestamp>.<raw body>`. Throws with the reason otherwise.
 */
export function verifyV1a(
  publicKey: string,
  headers: Record<string, string | string[] | undefined>,
  rawBody: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): void {
  const [id, timestamp, signatures] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => {
    const value = headers[name];
    if (typeof value !== 'string' || value === '') throw new Error(`missing ${name}`);
    return value;
  }) as [string, string, string];
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - seconds) > TOLERANCE_SECONDS)
    throw new Error('timestamp outside the tolerance');
  if (!publicKey.startsWith('whpk_')) throw new Error('not a whpk_ public key');
  const raw = Buffer.from(publicKey.slice('whpk_'.length), 'base64');
  const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: 'der', type: 'spki' });
  const signed = Buffer.from(`${id}.${timestamp}.${rawBody}`);
  const verified = signatures.split(' ').some((versioned) => {
    const [version, signature] = versioned.split(',');
    return version === 'v1a' && signature !== undefined && verify(null, signed, key, Buffer.from(signature, 'base64'));
  });
  if (!verified) throw new Error('no v1a signature verifies');
}
