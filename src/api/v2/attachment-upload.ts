import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { attachmentUploadBody } from '../../../schemas/v2/attachments.js';
import type { Config } from '../../config/config.js';
import { TOKEN_FIELD, TOKEN_HEADER } from '../../http/authenticate.js';
import type { AppContext, AppState } from '../../http/context.js';
import { readInput } from '../../http/input.js';
import { parseFormFields } from '../../http/query.js';
import { validator } from '../../http/validate.js';
import { ValidationFailed } from '../../errors/errors.js';
import type { Presenters } from '../../presenters/presenters.js';
import type { Store } from '../../store/store.js';
import { requireCompany } from '../lookup.js';
import { FILE_URL_FIELD, type FileFetcher } from './fetch-file.js';
import { FILE_FIELD, type ReceivedParts } from './receive-file.js';
import {
  keepUpload,
  leaveMultipartUnread,
  receiveMultipart,
  removeQuietly,
  type StoragePlace,
  type UploadSlots,
} from './upload-intake.js';

const uploadBody = validator(attachmentUploadBody);

export interface DocumentedUploadDeps {
  store: Store;
  auth: Middleware<AppState>;
  config: Config;
  presenters: Presenters;
  slots: UploadSlots;
  fetcher: FileFetcher;
}

/** A multipart body received before authentication: its token was among its fields. */
interface Received {
  place: StoragePlace;
  parts: ReceivedParts;
}

/**
 * `POST /api/p2/attachments` as the hosted service documents it (content/ru/v2/attachments/upload-attachment.md):
 * `company_id` in the body, the file as the multipart `file` part or downloaded from `file_url`
 * (src/api/v2/fetch-file.ts), `metadata` optional. Answers 201 `{attachment}`.
 */
export function documentedUploadRoute(
  router: Router<AppState>,
  { store, auth, config, slots, fetcher, presenters }: DocumentedUploadDeps,
): void {
  const early = new WeakMap<object, Received>();

  /**
   * The page's multipart example carries `private_api_token` as a field of the body, after the file.
   * Without a token in the header or the query the body is received first so that authentication
   * can read that field: in a slot of the client's address (never one an account's uploads use),
   * within the size limit and within GATEWAY_BODY_TIMEOUT (408 past it, so a trickled body holds
   * its slot briefly). Whatever happens next, the received file is removed unless it was kept.
   */
  const receiveBeforeAuth: Middleware<AppState> = async (ctx, next) => {
    const tokenElsewhere = ctx.get(TOKEN_HEADER) !== '' || ctx.query[TOKEN_FIELD] !== undefined;
    if (!ctx.request.is('multipart/form-data') || tokenElsewhere) return void (await next());
    const place = slots.place();
    const parts = await receiveMultipart(ctx, slots, place.part, config.attachmentMaxBytes, config.bodyTimeoutMs);
    early.set(ctx.req, { place, parts });
    ctx.request.body = fieldsOf(parts);
    try {
      await next();
    } finally {
      await removeQuietly(place.part);
    }
  };

  router.post('/api/p2/attachments', leaveMultipartUnread, receiveBeforeAuth, auth, async (ctx) => {
    const multipart = Boolean(ctx.request.is('multipart/form-data'));
    let received = early.get(ctx.req);
    if (multipart && received === undefined) {
      const place = slots.place();
      received = { place, parts: await receiveMultipart(ctx, slots, place.part, config.attachmentMaxBytes) };
    }
    const place = received?.place ?? slots.place();
    try {
      const input =
        received === undefined ? readJsonOrForm(ctx) : uploadBody(withoutToken(fieldsOf(received.parts)), 'text');
      const company = requireCompany(store, ctx, input.company_id);
      let file = received?.parts.file;
      if (file !== undefined && input.file_url !== undefined) {
        throw ValidationFailed.field(
          FILE_URL_FIELD,
          `send either a ${FILE_FIELD} part or a ${FILE_URL_FIELD}, not both`,
        );
      }
      if (file === undefined) {
        if (input.file_url === undefined) {
          throw ValidationFailed.field(
            FILE_FIELD,
            `${FILE_FIELD} or ${FILE_URL_FIELD} is required: a multipart/form-data file part, or the URL to download it from`,
          );
        }
        const url = input.file_url;
        file = await slots.hold(ctx, () => fetcher.fetch(url, place.part));
      }
      const row = await keepUpload(store, place, company.id, file, input.metadata);
      ctx.status = 201;
      ctx.body = { attachment: presenters.attachment(row) };
    } finally {
      await removeQuietly(place.part);
    }
  });
}

/** A JSON or form body: `file` there cannot be a file. */
function readJsonOrForm(ctx: AppContext) {
  const body = ctx.request.body as Record<string, unknown> | undefined;
  if (body !== undefined && FILE_FIELD in body) {
    throw ValidationFailed.field(
      FILE_FIELD,
      `a ${FILE_FIELD} is sent as a multipart/form-data file part; in a JSON or form body give ${FILE_URL_FIELD}`,
    );
  }
  return readInput(ctx, uploadBody);
}

/** The text fields of a multipart body, nested by their brackets (`metadata[data][width]`) as a form's are. */
function fieldsOf(parts: ReceivedParts): Record<string, unknown> {
  return parseFormFields(new URLSearchParams(parts.fields).toString());
}

function withoutToken(fields: Record<string, unknown>): Record<string, unknown> {
  const { [TOKEN_FIELD]: _token, ...rest } = fields;
  return rest;
}
