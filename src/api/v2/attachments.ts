import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Router from '@koa/router';
import busboy from 'busboy';
import type { Middleware } from 'koa';
import type { Config } from '../../config/config.js';
import { discardRest } from '../../http/body.js';
import type { AppState } from '../../http/context.js';
import { AppError, BadRequest, NotFound, PayloadTooLarge, UnsupportedMediaType, ValidationFailed } from '../../errors/errors.js';
import type { Store } from '../../store/store.js';
import { findCompany } from '../lookup.js';
import { presentAttachment } from '../../presenters/attachment.js';

const FILE_FIELD = 'file';
/** 32 random bytes in base64url, and nothing else: checked before the key is used anywhere. */
const STORAGE_KEY = /^[A-Za-z0-9_-]{43}$/;
const MAX_FILE_NAME = 255;
/** Voice notes: Ogg audio (Opus, as the messengers record them, or Vorbis). */
const VOICE_NOTE_TYPES = new Set(['audio/ogg', 'audio/opus']);
/** Text formats magic bytes cannot tell apart; a client's claim of one is kept when the content is text. */
const TEXT_TYPES = new Set(['text/plain', 'text/csv', 'text/markdown', 'text/calendar', 'text/vcard', 'text/x-vcard', 'application/json']);
/** What a browser may show in place: rendering these runs no script of the uploader's. */
const INLINE_TYPE = /^(image\/(png|jpeg|gif|webp|avif|bmp)|audio\/.+|video\/.+|application\/pdf|text\/plain)$/;

/** Folder of the uploaded files inside the data dir; a file's name there is its storage key. */
export function attachmentsFolder(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'attachments');
}

/**
 * Upload (`POST /api/p2/companies/:companyId/attachments`, multipart field `file`, token in the
 * header or query) and the public file route behind `attachment_url` and `preview_url`.
 */
export function attachmentRoutes(router: Router<AppState>, store: Store, auth: Middleware<AppState>, config: Config): void {
  const folder = attachmentsFolder(config);
  fs.mkdirSync(folder, { recursive: true });

  router.post('/api/p2/companies/:companyId/attachments', leaveMultipartUnread, auth, async (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const storageKey = randomBytes(32).toString('base64url');
    const stored = path.join(folder, storageKey);
    const upload = await receiveFile(ctx.req, Boolean(ctx.request.is('multipart/form-data')), `${stored}.part`, config.attachmentMaxBytes);
    try {
      const facts = await inspectFile(upload.path, upload.declaredType);
      await fs.promises.rename(upload.path, stored);
      const row = store.attachments.insert({ companyId: company.id, storageKey, fileName: upload.fileName, size: upload.size, ...facts });
      ctx.status = 201;
      ctx.body = { attachment: presentAttachment(row, config.publicUrl) };
    } catch (error) {
      await removeQuietly(upload.path, stored);
      throw error;
    }
  });

  // No token: the 32 random bytes of the URL are the capability (providers fetch it too).
  router.get('/files/:storageKey/:fileName', async (ctx) => {
    const key = ctx.params.storageKey ?? '';
    const row = STORAGE_KEY.test(key) ? store.attachments.findByStorageKey(key) : undefined;
    // The name must be the one handed out: one URL per file, nothing to vary for a confused reader.
    if (row === undefined || ctx.params.fileName !== row.file_name) throw new NotFound('There is no file at this address.');
    const file = path.join(folder, row.storage_key);
    const stat = await fs.promises.stat(file).catch(() => undefined);
    if (stat === undefined) throw new NotFound('There is no file at this address.');

    const inline = ctx.query.disposition === 'inline' && INLINE_TYPE.test(row.mime_type);
    ctx.attachment(row.file_name, { type: inline ? 'inline' : 'attachment' });
    ctx.type = row.mime_type; // after attachment(), which guesses a type from the name
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'private, max-age=31536000, immutable');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.status = 200;
    ctx.length = stat.size;
    if (ctx.method !== 'HEAD') ctx.body = fs.createReadStream(file);
  });
}

/**
 * The shared body parser knows JSON and forms only and refuses anything else with a 415. A multipart
 * body is streamed to disk by the upload handler itself, after authentication: mark it as read so
 * the parser leaves it alone (its token can therefore only come from the header or the query).
 */
const leaveMultipartUnread: Middleware<AppState> = (ctx, next) => {
  if (ctx.request.is('multipart/form-data') && ctx.request.body === undefined) ctx.request.body = {};
  return next();
};

interface ReceivedFile {
  path: string;
  fileName: string;
  declaredType: string;
  size: number;
}

/**
 * Streams the one `file` part of a multipart body to `partPath`, stopping at `maxBytes`. Other
 * fields are ignored. On any failure nothing is left on disk and the rest of the body is discarded.
 */
async function receiveFile(req: IncomingMessage, multipart: boolean, partPath: string, maxBytes: number): Promise<ReceivedFile> {
  if (!multipart) throw new UnsupportedMediaType(`Send the file as multipart/form-data in the "${FILE_FIELD}" field.`);
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8', // browsers send file names as raw UTF-8
      // busboy reports 'limit' on reaching the size, so a file of exactly maxBytes needs one more
      limits: { fileSize: maxBytes + 1, files: 2, fields: 20, fieldSize: 64 * 1024, parts: 24 },
    });
  } catch {
    throw new BadRequest('The multipart body has no boundary.');
  }

  let file: { fileName: string; declaredType: string; stream: Readable } | undefined;
  let writing: Promise<number> | undefined;
  const parsed = new Promise<void>((resolve, reject) => {
    parser.on('file', (field, stream, info) => {
      if (field !== FILE_FIELD || file !== undefined) {
        stream.resume();
        if (field === FILE_FIELD) reject(oneFileOnly());
        return;
      }
      file = { fileName: cleanFileName(info.filename), declaredType: info.mimeType, stream };
      stream.once('limit', () => reject(new PayloadTooLarge(`The file is larger than the limit of ${maxBytes} bytes.`)));
      writing = writeTo(stream, partPath);
      writing.catch(reject);
    });
    parser.once('filesLimit', () => reject(oneFileOnly()));
    parser.once('partsLimit', () => reject(new BadRequest('The multipart body has too many parts.')));
    parser.once('fieldsLimit', () => reject(new BadRequest('The multipart body has too many fields.')));
    parser.once('error', () => reject(new BadRequest('The multipart body could not be read.')));
    parser.once('close', resolve);
    req.once('aborted', () => reject(new BadRequest('The upload was interrupted.')));
    req.once('error', () => reject(new BadRequest('The upload was interrupted.')));
  });
  req.pipe(parser);

  try {
    await parsed;
    const size = await writing;
    if (file === undefined || size === undefined) {
      throw ValidationFailed.field(FILE_FIELD, `${FILE_FIELD} is required: send it as a file part of a multipart/form-data body`);
    }
    if (size === 0) throw ValidationFailed.field(FILE_FIELD, `${FILE_FIELD} must not be empty`);
    return { path: partPath, fileName: file.fileName, declaredType: file.declaredType, size };
  } catch (error) {
    req.unpipe(parser);
    discardRest(req);
    file?.stream.destroy();
    await writing?.catch(() => undefined);
    await removeQuietly(partPath);
    throw error instanceof AppError ? error : new BadRequest('The upload could not be read.');
  }
}

async function writeTo(stream: Readable, file: string): Promise<number> {
  let size = 0;
  stream.on('data', (chunk: Buffer) => {
    size += chunk.length;
  });
  await pipeline(stream, fs.createWriteStream(file, { flags: 'wx' }));
  return size;
}

function oneFileOnly(): ValidationFailed {
  return ValidationFailed.field(FILE_FIELD, 'send one file per request (a message carries one attachment)');
}


/** The client's name without folders or control characters; a safe default when none is left. */
function cleanFileName(name: string | undefined): string {
  // Browsers (and fetch's FormData) send a quote in a file name as %22 (WHATWG multipart encoding).
  const base = (name ?? '').replaceAll('%22', '"').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  const short = [...clean].slice(0, MAX_FILE_NAME).join('');
  return short === '' || short === '.' || short === '..' ? 'file' : short;
}

interface FileFacts {
  mimeType: string;
  width: number | null;
  height: number | null;
  pushToTalk: boolean;
}

/**
 * What the bytes are, from their magic numbers; the client's Content-Type only decides between
 * text formats, which have none. Unknown binary content is application/octet-stream.
 */
async function inspectFile(file: string, declaredType: string): Promise<FileFacts> {
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

async function removeQuietly(...files: string[]): Promise<void> {
  await Promise.all(files.map((file) => fs.promises.rm(file, { force: true })));
}
