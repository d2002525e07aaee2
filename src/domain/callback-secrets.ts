import { randomBytes } from 'node:crypto';

/** How a provider reaches the gateway: which callback family a channel's provider speaks (docs/design.md section 5). */
export type CallbackFamily = 'cloud' | 'bot' | 'connector';

/** `chat_a_business` posts the cloud-style business API, `chat_b` the bot-style API; every other (session-based) provider goes through our connector protocol. */
export function callbackFamily(provider: string): CallbackFamily {
  if (provider === 'chat_a_business') return 'cloud';
  if (provider === 'chat_b') return 'bot';
  return 'connector';
}

/** Fresh per-channel secrets, generated when a channel is created: 32 random bytes to sign with, 16 for the subscribe handshake. */
export function generateCallbackSecrets(): { signingSecret: string; verifyToken: string } {
  return { signingSecret: randomBytes(32).toString('hex'), verifyToken: randomBytes(16).toString('hex') };
}

/**
 * The form each family's provider is configured with, derived from the stored hex secret:
 * - cloud-style app secret: the hex text itself (the HMAC key is its UTF-8 bytes, as app secrets are used);
 * - bot-style secret token: base64url of the bytes (the alphabet that header allows);
 * - connector: `whsec_<base64>` (Standard Webhooks).
 */
export function presentedSecret(family: CallbackFamily, signingSecretHex: string): string {
  const bytes = Buffer.from(signingSecretHex, 'hex');
  switch (family) {
    case 'cloud':
      return signingSecretHex;
    case 'bot':
      return bytes.toString('base64url');
    case 'connector':
      return `whsec_${bytes.toString('base64')}`;
  }
}
