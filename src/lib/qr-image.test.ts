import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { readQr } from '../../test/helpers/qr.js';
import { qrDataUrl, qrPng, qrPngBase64 } from './qr-image.js';

// pact-im/api-doc content/en/v2/auths/confirm-auth.md ("a qr field with a Base64-encoded QR image")
// and _includes/v1_webhooks.md ("data": "BASE64 QR-CODE image string").
describe('QR images', () => {
  it('a PNG whose code reads back as the payload, short or as long as a real session QR', () => {
    const long = `2@${'Xg3bq1yJ8lmn9r0sT6vW'.repeat(12)},${'a'.repeat(44)}=,${'b'.repeat(44)}=,${'c'.repeat(24)}=`;
    for (const payload of ['sandbox-qr:1:abc', long, 'Ünïcode ✓ payload']) {
      const png = qrPng(payload);
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(readQr(png)).toBe(payload);
    }
  });

  it('square, with a white quiet zone, and small enough for a webhook', () => {
    const png = PNG.sync.read(qrPng('2@payload-of-a-connector'));
    expect(png.width).toBe(png.height);
    expect(png.width).toBeGreaterThanOrEqual(100);
    expect([...png.data.subarray(0, 4)]).toEqual([255, 255, 255, 255]);
    expect(qrPngBase64('2@payload-of-a-connector').length).toBeLessThan(8_000);
  });

  it('base64 for the v1 webhook, a data URL for the v2 qr field, both the same image', () => {
    const base64 = qrPngBase64('2@same');
    expect(base64).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(qrDataUrl('2@same')).toBe(`data:image/png;base64,${base64}`);
    expect(readQr(qrDataUrl('2@same'))).toBe('2@same');
  });
});
