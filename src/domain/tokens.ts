import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new private API token: 32 random bytes, recognisable by its prefix in logs and leak scanners. */
export function generateApiToken(): string {
  return `gwk_${randomBytes(32).toString('base64url')}`;
}

/**
 * Tokens are high-entropy secrets, so a plain SHA-256 digest is the right storage form: it is
 * looked up by index (no per-row comparison to time) and a leaked table reveals no usable token.
 */
export function digestApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
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
  return createHash('sha256').update(expected, 'utf8').digest();
}

/** sameSecret against the secretDigest of the expected secret. */
export function matchesSecretDigest(given: string, expectedDigest: Buffer): boolean {
  return timingSafeEqual(createHash('sha256').update(given, 'utf8').digest(), expectedDigest);
}
