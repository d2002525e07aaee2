import crypto, { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * SHA-256 of a text (UTF-8). crypto.hash (Node 20.12 on) is one call: about 1.5 µs against 7 µs
 * for createHash().update().digest(), and a bot-style callback compares its secret header on
 * every update. Node 20.11 (package.json engines) has no crypto.hash: createHash there.
 */
const sha256: (text: string) => Buffer =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'buffer')
    : (text) => createHash('sha256').update(text, 'utf8').digest();

/** A new private API token: 32 random bytes, recognisable by its prefix in logs and leak scanners. */
export function generateApiToken(): string {
  return `gwk_${randomBytes(32).toString('base64url')}`;
}

/**
 * What a list shows of an API token: `gwk_` and its next 8 characters (48 of its 256 random bits).
 * A token of another shape (a GATEWAY_BOOTSTRAP_TOKEN an operator chose) shows nothing: null.
 */
export function tokenPrefix(token: string): string | null {
  return token.startsWith('gwk_') && token.length >= 40 ? token.slice(0, 12) : null;
}

/**
 * Tokens are high-entropy secrets, so a plain SHA-256 digest is the right storage form: it is
 * looked up by index (no per-row comparison to time) and a leaked table reveals no usable token.
 */
export function digestApiToken(token: string): string {
  return sha256(token).toString('hex');
}

/**
 * HMAC-SHA256 of a secret under a key, as hex: the stored form of a secret that may be a phrase an
 * operator chose (the admin token a console session was opened with). Unlike a plain SHA-256, a
 * leaked table then allows no offline guessing without the key, and no precomputed table applies.
 */
export function keyedDigest(secret: string, key: Buffer): string {
  return createHmac('sha256', key).update(secret, 'utf8').digest('hex');
}

/**
 * Equality of two secrets in time independent of where they differ: SHA-256 digests (always of
 * equal length) are compared, so neither the length nor a matching prefix leaks by timing.
 */
export function sameSecret(given: string, expected: string): boolean {
  return matchesSecretDigest(given, secretDigest(expected));
}

/** The SHA-256 digest sameSecret compares an expected secret by; keep it to compare many given texts. */
export function secretDigest(expected: string): Buffer {
  return sha256(expected);
}

/** sameSecret against the secretDigest of the expected secret. */
export function matchesSecretDigest(given: string, expectedDigest: Buffer): boolean {
  return timingSafeEqual(sha256(given), expectedDigest);
}
