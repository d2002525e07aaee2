import fs from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Config } from '../../config/config.js';
import type { AppState } from '../../http/context.js';
import { NotFound, ValidationFailed } from '../../errors/errors.js';
import type { Store } from '../../store/store.js';
import { findCompany } from '../lookup.js';
import type { Presenters } from '../../presenters/presenters.js';
import { documentedUploadRoute } from './attachment-upload.js';
import type { FileFetcher } from './fetch-file.js';
import { FILE_FIELD } from './receive-file.js';
import { keepUpload, leaveMultipartUnread, receiveMultipart, UploadSlots } from './upload-intake.js';

/** 32 random bytes in base64url, and nothing else: checked before the key is used anywhere. */
const STORAGE_KEY = /^[A-Za-z0-9_-]{43}$/;
/** What a browser may show in place: rendering these runs no script of the uploader's. */
const INLINE_TYPE = /^(image\/(png|jpeg|gif|webp|avif|bmp)|audio\/.+|video\/.+|application\/pdf|text\/plain)$/;

/** Folder of the uploaded files inside the data dir; a file's name there is its storage key. */
export function attachmentsFolder(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'attachments');
}

/**
 * Upload at the company's path (`POST /api/p2/companies/:companyId/attachments`, multipart field
 * `file`, token in the header or query), upload at the hosted service's documented path
 * (`POST /api/p2/attachments`, src/api/v2/attachment-upload.ts), and the public file route behind
 * `attachment_url` and `preview_url`.
 */
export function attachmentRoutes(
  router: Router<AppState>,
  store: Store,
  auth: Middleware<AppState>,
  config: Config,
  fetcher: FileFetcher,
  presenters: Presenters,
): void {
  const folder = attachmentsFolder(config);
  const slots = new UploadSlots(config.uploadConcurrency, folder);

  router.post('/api/p2/companies/:companyId/attachments', leaveMultipartUnread, auth, async (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const place = slots.place();
    const { file } = await receiveMultipart(ctx, slots, place.part, config.attachmentMaxBytes);
    if (file === undefined)
      throw ValidationFailed.field(
        FILE_FIELD,
        `${FILE_FIELD} is required: send it as a file part of a multipart/form-data body`,
      );
    const row = await keepUpload(store, place, company.id, file);
    ctx.status = 201;
    ctx.body = { attachment: presenters.attachment(row) };
  });

  documentedUploadRoute(router, { store, auth, config, slots, fetcher, presenters });

  // No token: the 32 random bytes of the URL are the capability (providers fetch it too).
  router.get('/files/:storageKey/:fileName', async (ctx) => {
    const key = ctx.params.storageKey ?? '';
    const row = STORAGE_KEY.test(key) ? store.attachments.findByStorageKey(key) : undefined;
    // The name must be the one handed out: one URL per file, nothing to vary for a confused reader.
    if (row === undefined || ctx.params.fileName !== row.file_name)
      throw new NotFound('There is no file at this address.');
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
