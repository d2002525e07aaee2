import { crc32, deflateSync } from 'node:zlib';
import QRCode from 'qrcode';

/** Pixels per QR module: a 60-character payload makes an image of about 200 px, easy to scan off a screen. */
const SCALE = 4;
/** The quiet zone around the symbol, in modules: the 4 the QR standard asks for. */
const MARGIN = 4;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The QR code of a connector's payload as a PNG image (8-bit greyscale, black modules on white).
 * The symbol itself (encoding, error correction, masking) is made by the `qrcode` package; this
 * only writes its modules into a PNG, synchronously, so that it can run inside the transaction that
 * records the QR (the package's own PNG output is asynchronous).
 */
export function qrPng(payload: string): Buffer {
  const { modules } = QRCode.create(payload, { errorCorrectionLevel: 'M' });
  const side = (modules.size + 2 * MARGIN) * SCALE;
  // One filter byte (0: none) before each row of pixels.
  const raw = Buffer.alloc((side + 1) * side, 0xff);
  for (let y = 0; y < side; y += 1) {
    raw[y * (side + 1)] = 0;
    const row = Math.floor(y / SCALE) - MARGIN;
    if (row < 0 || row >= modules.size) continue;
    for (let x = 0; x < side; x += 1) {
      const col = Math.floor(x / SCALE) - MARGIN;
      if (col >= 0 && col < modules.size && modules.get(row, col)) raw[y * (side + 1) + 1 + x] = 0;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([8, 0, 0, 0, 0], 8); // bit depth 8, greyscale, deflate, adaptive filtering, no interlace
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The PNG of qrPng in base64: what the v1 `qr_code` webhook carries in `data`. */
export function qrPngBase64(payload: string): string {
  return qrPng(payload).toString('base64');
}

/** The PNG of qrPng as a data URL (`data:image/png;base64,...`): what an `<img src>` shows; the v2 `qr`. */
export function qrDataUrl(payload: string): string {
  return `data:image/png;base64,${qrPngBase64(payload)}`;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}
