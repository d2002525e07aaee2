import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';

/**
 * Asymmetric signing keys of webhook endpoints (Standard Webhooks `v1a`): an ed25519 key pair
 * written as `whsk_` + base64 of the 32-byte private seed and `whpk_` + base64 of the 32-byte
 * public key, the forms the Standard Webhooks libraries read. node:crypto does the cryptography;
 * these only wrap the raw bytes in the DER headers it takes (RFC 8410).
 */
export const SIGNING_KEY_PREFIX = 'whsk_';
export const PUBLIC_KEY_PREFIX = 'whpk_';

/** How an endpoint signs: `hmac-sha256` (a `whsec_` secret, `v1`) or `ed25519` (a `whsk_` key, `v1a`). */
export type SigningAlgorithm = 'hmac-sha256' | 'ed25519';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A new ed25519 signing key, `whsk_<base64 of the 32-byte seed>`. */
export function generateSigningKey(): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  const der = privateKey.export({ format: 'der', type: 'pkcs8' });
  return `${SIGNING_KEY_PREFIX}${der.subarray(PKCS8_ED25519_PREFIX.length).toString('base64')}`;
}

/** The signing algorithm a stored secret stands for. */
export function signingAlgorithmOf(secret: string): SigningAlgorithm {
  return secret.startsWith(SIGNING_KEY_PREFIX) ? 'ed25519' : 'hmac-sha256';
}

/** The private key of a `whsk_` key; throws when it is not 32 bytes of base64. */
export function ed25519PrivateKey(signingKey: string): KeyObject {
  const seed = Buffer.from(signingKey.slice(SIGNING_KEY_PREFIX.length), 'base64');
  if (seed.length !== 32) throw new Error('an ed25519 signing key is whsk_ and the base64 of 32 bytes');
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** The public half of a `whsk_` key, `whpk_<base64 of the 32-byte public key>`: what receivers verify with. */
export function publicKeyOf(signingKey: string): string {
  const jwk = createPublicKey(ed25519PrivateKey(signingKey)).export({ format: 'jwk' });
  return `${PUBLIC_KEY_PREFIX}${Buffer.from(jwk.x!, 'base64url').toString('base64')}`;
}
