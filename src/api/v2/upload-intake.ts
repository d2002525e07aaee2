import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Middleware } from 'koa';
import { discardRest } from '../../http/body.js';
import type { AppContext, AppState } from '../../http/context.js';
import { requireIdentityEncoding } from '../../http/raw-body.js';
import { ServiceUnavailable, UnsupportedMediaType, ValidationFailed } from '../../errors/errors.js';
import type { AttachmentRow } from '../../store/resources/attachments.js';
import type { Store } from '../../store/store.js';
import { inspectFile } from './inspect-file.js';
import { FILE_FIELD, receiveParts, type ReceivedFile, type ReceivedParts } from './receive-file.js';

/** What a client may say about its file (the upload page's `metadata`). */
export interface UploadMetadata {
  push_to_talk?: boolean;
  data?: { width?: number; height?: number };
}

/** A storage key (32 random bytes, base64url) and where its file is written, then kept. */
export interface StoragePlace {
  storageKey: string;
  stored: string;
  part: string;
}

/**
 * The uploads that may be received or downloaded at once (GATEWAY_UPLOAD_CONCURRENCY) per account,
 * and per client address for a body received before its token is known (the token among its
 * fields); one more is refused with a 503 and Retry-After, before its body is read. No slot is
 * shared between accounts, nor between an account and requests without a valid token: a caller
 * holding its slots with slow bodies holds only its own.
 */
export class UploadSlots {
  private readonly taken = new Map<string, number>();

  constructor(
    private readonly limit: number,
    readonly folder: string,
  ) {
    fs.mkdirSync(folder, { recursive: true });
  }

  /** A fresh storage key and its paths in the attachments folder. */
  place(): StoragePlace {
    const storageKey = randomBytes(32).toString('base64url');
    const stored = path.join(this.folder, storageKey);
    return { storageKey, stored, part: `${stored}.part` };
  }

  /**
   * Runs `work` in a slot of the request's account (of its client address before authentication),
   * or refuses at once when every slot of it is taken.
   */
  async hold<T>(ctx: AppContext, work: () => Promise<T>): Promise<T> {
    const account = ctx.state.account;
    const owner = account === undefined ? `address ${ctx.ip}` : `account ${account.id}`;
    const taken = this.taken.get(owner) ?? 0;
    if (taken >= this.limit) {
      ctx.set('Retry-After', '1');
      throw new ServiceUnavailable(
        account === undefined
          ? 'As many uploads as this gateway receives at once from one address before their token is read are under way; try again shortly, or send the token in the X-Private-Api-Token header.'
          : 'As many uploads as this gateway takes at once for one account are under way; try again shortly.',
      );
    }
    this.taken.set(owner, taken + 1);
    try {
      return await work();
    } finally {
      const left = (this.taken.get(owner) ?? 1) - 1;
      if (left === 0) this.taken.delete(owner);
      else this.taken.set(owner, left);
    }
  }
}

/**
 * Receives a multipart body (its `file` part to `part`, its text fields kept) in an upload slot.
 * Refused before the first byte is read when it is not multipart (415), has a Content-Encoding (415:
 * files are taken as sent) or finds no free slot (503); with `timeoutMs`, a body not received
 * within it is a 408. A refused upload's connection is not reused: what the client still sends is
 * dropped (discardRest).
 */
export async function receiveMultipart(
  ctx: AppContext,
  slots: UploadSlots,
  part: string,
  maxBytes: number,
  timeoutMs?: number,
): Promise<ReceivedParts> {
  try {
    if (!ctx.request.is('multipart/form-data'))
      throw new UnsupportedMediaType(`Send the file as multipart/form-data in the "${FILE_FIELD}" field.`);
    requireIdentityEncoding(ctx.req, 'An upload');
    return await slots.hold(ctx, () => receiveParts(ctx.req, part, maxBytes, timeoutMs));
  } catch (error) {
    discardRest(ctx.req);
    ctx.set('Connection', 'close');
    throw error;
  }
}

/**
 * The shared body parser knows JSON and forms only and refuses anything else with a 415. A multipart
 * body is streamed to disk by the upload handler itself: mark it as read so the parser leaves it alone.
 */
export const leaveMultipartUnread: Middleware<AppState> = (ctx, next) => {
  if (ctx.request.is('multipart/form-data') && ctx.request.body === undefined) ctx.request.body = {};
  return next();
};

/**
 * Keeps a received file as the company's attachment: its type and picture size from its bytes,
 * the client's metadata where the bytes say nothing, then moved to its storage key and its row
 * inserted. On any failure the file is removed and nothing is kept.
 */
export async function keepUpload(
  store: Store,
  place: StoragePlace,
  companyId: number,
  upload: ReceivedFile,
  metadata: UploadMetadata = {},
): Promise<AttachmentRow> {
  try {
    const facts = await inspectFile(upload.path, upload.declaredType);
    const isAudio = facts.mimeType.startsWith('audio/');
    const isImage = facts.mimeType.startsWith('image/');
    if (metadata.push_to_talk === true && !isAudio) {
      throw ValidationFailed.field(
        'metadata/push_to_talk',
        `push_to_talk is for audio files only (this file is ${facts.mimeType})`,
      );
    }
    if (metadata.data !== undefined && Object.keys(metadata.data).length > 0 && !isImage) {
      throw ValidationFailed.field(
        'metadata/data',
        `data (width and height) is for images only (this file is ${facts.mimeType})`,
      );
    }
    const declared = metadata.data;
    const useDeclared =
      isImage &&
      (facts.width === null || facts.height === null) &&
      declared?.width !== undefined &&
      declared.height !== undefined;
    await fs.promises.rename(upload.path, place.stored);
    return store.transaction(() =>
      store.attachments.insert({
        companyId,
        storageKey: place.storageKey,
        fileName: upload.fileName,
        size: upload.size,
        mimeType: facts.mimeType,
        width: useDeclared ? declared.width! : facts.width,
        height: useDeclared ? declared.height! : facts.height,
        pushToTalk: isAudio && metadata.push_to_talk !== undefined ? metadata.push_to_talk : facts.pushToTalk,
      }),
    );
  } catch (error) {
    await removeQuietly(upload.path, place.stored);
    throw error;
  }
}

export async function removeQuietly(...files: string[]): Promise<void> {
  await Promise.all(files.map((file) => fs.promises.rm(file, { force: true })));
}
