import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSigningKey, publicKeyOf } from '../lib/signing-keys.js';
import { verifyV1a } from '../../test/helpers/verify-v1a.js';
import { signatureHeaders } from './signing.js';

// We sign with node:crypto (docs/decisions.md); the standardwebhooks package is the judge.
const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
const body = JSON.stringify({ type: 'message.create', data: { text: 'héllo ✓ 😀', n: 1 } });

describe('signatureHeaders', () => {
  it('signs what standardwebhooks verifies, for secrets of several lengths', () => {
    for (const s of [
      secret(),
      `whsec_${randomBytes(32).toString('base64')}`,
      `whsec_${randomBytes(1).toString('base64')}`,
    ]) {
      const headers = signatureHeaders('evt_1', new Date(), body, [s]);
      expect(new Webhook(s).verify(body, headers)).toEqual(JSON.parse(body));
      expect(headers['webhook-signature']).toBe(
        new Webhook(s).sign('evt_1', new Date(Number(headers['webhook-timestamp']) * 1000), body),
      );
    }
  });

  it('signs once per secret during a rotation, each verifiable on its own', () => {
    const [current, previous] = [secret(), secret()];
    const headers = signatureHeaders('evt_2', new Date(), body, [current, previous]);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(headers['webhook-signature']!.split(' ').every((s) => s.startsWith('v1,'))).toBe(true);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('fails verification with another secret, id, timestamp or body', () => {
    const s = secret();
    const headers = signatureHeaders('evt_3', new Date(), body, [s]);
    expect(() => new Webhook(secret()).verify(body, headers)).toThrow('No matching signature found');
    expect(() => new Webhook(s).verify(body, { ...headers, 'webhook-id': 'evt_4' })).toThrow(
      'No matching signature found',
    );
    expect(() =>
      new Webhook(s).verify(body, {
        ...headers,
        'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1),
      }),
    ).toThrow('No matching signature found');
    expect(() => new Webhook(s).verify(`${body} `, headers)).toThrow('No matching signature found');
  });

  it('reads secrets as standardwebhooks does: with or without the prefix, and refuses what it refuses', () => {
    const raw = randomBytes(24).toString('base64');
    const headers = signatureHeaders('evt_5', new Date(), body, [raw]);
    expect(new Webhook(`whsec_${raw}`).verify(body, headers)).toEqual(JSON.parse(body));
    // Not canonical base64 (no padding): the package itself signs.
    const unpadded = `whsec_${randomBytes(16).toString('base64').replace(/=+$/, '')}`;
    let expected: string | Error;
    try {
      expected = new Webhook(unpadded).sign('evt_6', new Date(0), body);
    } catch (error) {
      expected = error as Error;
    }
    if (expected instanceof Error)
      expect(() => signatureHeaders('evt_6', new Date(0), body, [unpadded])).toThrow(expected.message);
    else expect(signatureHeaders('evt_6', new Date(0), body, [unpadded])['webhook-signature']).toBe(expected);
    expect(() => signatureHeaders('evt_7', new Date(), body, ['whsec_'])).toThrow("Secret can't be empty.");
    expect(() => signatureHeaders('evt_7', new Date(), body, ['whsec_not base64!'])).toThrow();
  });
});

describe('ed25519 signing keys (Standard Webhooks v1a)', () => {
  it('signs the test vector of the Standard Webhooks reference library', () => {
    // libraries/go/webhook_asymmetric_test.go (TestAsymmetricWebhookSign) of standard-webhooks.
    const key = 'whsk_VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk=';
    const headers = signatureHeaders('msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(1614265330_000), '{"test": 2432232314}', [
      key,
    ]);
    expect(headers['webhook-signature']).toBe(
      'v1a,tQ9V2XOqn7jL/DQenEFpqIugdBVtiMmER5mhSkXBNwM0mkATuDe6KYYUuxqtaiHeYGb7KaaBRdM5WqyeFiL8Ag==',
    );
  });

  it('makes whsk_/whpk_ pairs whose signatures verify with the public half only', () => {
    const key = generateSigningKey();
    expect(key).toMatch(/^whsk_[A-Za-z0-9+/]{43}=$/);
    const publicKey = publicKeyOf(key);
    expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    const headers = signatureHeaders('evt_9', new Date(), body, [key]);
    expect(headers['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(() => verifyV1a(publicKey, headers, body)).not.toThrow();
    expect(() => verifyV1a(publicKeyOf(generateSigningKey()), headers, body)).toThrow('no v1a signature verifies');
    expect(() => verifyV1a(publicKey, headers, `${body} `)).toThrow('no v1a signature verifies');
  });

  it('signs with both keys during a rotation, and beside an HMAC secret each in its own version', () => {
    const [current, previous] = [generateSigningKey(), generateSigningKey()];
    const headers = signatureHeaders('evt_10', new Date(), body, [current, previous]);
    expect(() => verifyV1a(publicKeyOf(current), headers, body)).not.toThrow();
    expect(() => verifyV1a(publicKeyOf(previous), headers, body)).not.toThrow();
    const hmac = secret();
    const mixed = signatureHeaders('evt_11', new Date(), body, [current, hmac]);
    expect(mixed['webhook-signature']!.split(' ').map((s) => s.split(',')[0])).toEqual(['v1a', 'v1']);
    expect(new Webhook(hmac).verify(body, mixed)).toEqual(JSON.parse(body));
  });
});
