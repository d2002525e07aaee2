import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

// jsqr is CommonJS typed as an ES module: its function sits on `default` when imported from ESM.
const jsQR = jsQRModule.default;

/**
 * Reads a QR code image back, as a phone camera would: the PNG (raw bytes, base64, or a
 * `data:image/png;base64,` URL) decoded with pngjs, its symbol read with jsQR. Answers the payload,
 * or throws when the image is not a PNG or holds no readable QR code.
 */
export function readQr(image: Buffer | string): string {
  const bytes =
    typeof image === 'string' ? Buffer.from(image.replace(/^data:image\/png;base64,/, ''), 'base64') : image;
  const png = PNG.sync.read(bytes);
  const found = jsQR(
    new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length),
    png.width,
    png.height,
  );
  if (found === null) throw new Error(`no readable QR code in the ${png.width}×${png.height} PNG`);
  return found.data;
}
