import fs from 'node:fs';

/** Voice notes: Ogg audio (Opus, as the messengers record them, or Vorbis). */
const VOICE_NOTE_TYPES = new Set(['audio/ogg', 'audio/opus']);
/** Text formats magic bytes cannot tell apart; a client's claim of one is kept when the content is text. */
const TEXT_TYPES = new Set([
  'text/plain',
  'text/csv',
  'text/markdown',
  'text/calendar',
  'text/vcard',
  'text/x-vcard',
  'application/json',
]);

export interface FileFacts {
  mimeType: string;
  width: number | null;
  height: number | null;
  pushToTalk: boolean;
}

/**
 * What the bytes are, from their magic numbers; the client's Content-Type only decides between
 * text formats, which have none. Unknown binary content is application/octet-stream.
 */
export async function inspectFile(file: string, declaredType: string): Promise<FileFacts> {
  // Loaded on the first upload: a gateway that never takes one does not hold them in memory.
  const { fileTypeFromFile } = await import('file-type');
  const detected = await fileTypeFromFile(file);
  const mimeType = detected !== undefined ? baseType(detected.mime) : await textType(file, baseType(declaredType));
  const dimensions = mimeType.startsWith('image/') ? await imageDimensions(file) : undefined;
  return {
    mimeType,
    width: dimensions?.width ?? null,
    height: dimensions?.height ?? null,
    pushToTalk: VOICE_NOTE_TYPES.has(mimeType),
  };
}

function baseType(mime: string): string {
  return (mime.split(';')[0] ?? '').trim().toLowerCase();
}

/** The declared text type (or text/plain) for UTF-8 text without NUL bytes; else opaque bytes. */
async function textType(file: string, declared: string): Promise<string> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(8192), 0, 8192, 0);
    const head = buffer.subarray(0, bytesRead);
    if (head.includes(0)) return 'application/octet-stream';
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return TEXT_TYPES.has(declared) ? declared : 'text/plain';
  } catch {
    return 'application/octet-stream';
  } finally {
    await handle.close();
  }
}

/** Width and height as displayed: EXIF orientations 5 to 8 turn the picture a quarter. */
async function imageDimensions(file: string): Promise<{ width: number; height: number } | undefined> {
  try {
    const { imageSizeFromFile } = await import('image-size/fromFile');
    const size = await imageSizeFromFile(file);
    if (!size.width || !size.height) return undefined;
    const turned = size.orientation !== undefined && size.orientation >= 5;
    return turned ? { width: size.height, height: size.width } : { width: size.width, height: size.height };
  } catch {
    return undefined; // a picture whose header cannot be read is still stored, without dimensions
  }
}
