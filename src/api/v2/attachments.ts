import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Config } from '../../config/config.js';
import { discardRest } from '../../http/body.js';
import type { AppContext, AppState } from '../../http/context.js';
import { requireIdentityEncoding } from '../../http/raw-body.js';
import { NotFound, ServiceUnavailable, UnsupportedMediaType } from '../../errors/errors.js';
import type { Store } from '../../store/store.js';
import { findCompany } from '../lookup.js';
import { presentAttachment } from '../../presenters/attachment.js';
import { FILE_FIELD, receiveFile } from './receive-file.js';

/** 32 random bytes in base64url, and nothing else: checked before the key is used anywhere. */
const STORAGE_KEY = /^[A-Za-z0-9_-]{43}$/;
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

  let uploading = 0;

  router.post('/api/p2/companies/:companyId/attachments', leaveMultipartUnread, auth, async (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const storageKey = randomBytes(32).toString('base64url');
    const stored = path.join(folder, storageKey);
    // A refused upload's connection is not reused: what the client still sends is dropped (discardRest).
    const upload = await (async () => {
      try {
        refuseUnreadable(ctx, config.uploadConcurrency - uploading);
        uploading += 1;
        return await receiveFile(ctx.req, `${stored}.part`, config.attachmentMaxBytes).finally(() => {
          uploading -= 1;
        });
      } catch (error) {
        discardRest(ctx.req);
        ctx.set('Connection', 'close');
        throw error;
      }
    })();
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
 * Refusals before the first byte of the body is read: not multipart (415), a Content-Encoding (415:
 * files are taken as sent), or every upload slot taken (503 with Retry-After; GATEWAY_UPLOAD_CONCURRENCY).
 */
function refuseUnreadable(ctx: AppContext, freeSlots: number): void {
  if (!ctx.request.is('multipart/form-data')) throw new UnsupportedMediaType(`Send the file as multipart/form-data in the "${FILE_FIELD}" field.`);
  requireIdentityEncoding(ctx.req, 'An upload');
  if (freeSlots <= 0) {
    ctx.set('Retry-After', '1');
    throw new ServiceUnavailable('As many uploads as this gateway takes at once are under way; try again shortly.');
  }
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
