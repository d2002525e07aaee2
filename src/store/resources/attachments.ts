import type { Db } from '../engine/db.js';

/** An uploaded file. Its bytes live in the data dir under `storage_key`; this row says what they are. */
export interface AttachmentRow {
  id: number;
  company_id: number;
  /** The message that carries it; null until a message uses it. */
  message_id: number | null;
  /** 32 random bytes, base64url: the unguessable part of the file's URL and its name on disk. */
  storage_key: string;
  file_name: string;
  /** Detected from the content, not taken from the client. */
  mime_type: string;
  size: number;
  width: number | null;
  height: number | null;
  push_to_talk: number;
  created_at: number;
}

export interface NewAttachment {
  companyId: number;
  storageKey: string;
  fileName: string;
  mimeType: string;
  size: number;
  width: number | null;
  height: number | null;
  pushToTalk: boolean;
}

/** Attachments of a company: always looked up through the company, or through the secret storage key. */
export class AttachmentStore {
  private readonly insertOne;
  private readonly byCompanyAndId;
  private readonly byStorageKey;
  private readonly setMessage;
  private readonly byMessages;

  constructor(db: Db) {
    this.insertOne = db.prepare<InsertParams, AttachmentRow>(
      `INSERT INTO attachments (company_id, message_id, storage_key, file_name, mime_type, size, width, height, push_to_talk, origin,
         provider_media, created_at)
       VALUES (@company_id, @message_id, @storage_key, @file_name, @mime_type, @size, @width, @height, @push_to_talk, @origin,
         @provider_media, @created_at) RETURNING *`,
    );
    this.byCompanyAndId = db.prepare<[number, number], AttachmentRow>(
      'SELECT * FROM attachments WHERE company_id = ? AND id = ?',
    );
    this.byStorageKey = db.prepare<[string], AttachmentRow>('SELECT * FROM attachments WHERE storage_key = ?');
    this.setMessage = db.prepare<[number, number, number]>(
      'UPDATE attachments SET message_id = ? WHERE id = ? AND (message_id IS NULL OR message_id = ?)',
    );
    // One statement for any number of ids: the list travels as a JSON array.
    this.byMessages = db.prepare<[string], AttachmentRow>(
      'SELECT * FROM attachments WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY message_id, id',
    );
  }

  insert(attachment: NewAttachment, now = Date.now()): AttachmentRow {
    return this.insertOne.get(
      insertParams(attachment, { message_id: null, origin: 'upload', provider_media: null }, now),
    )!;
  }

  /**
   * An attachment a provider callback described (migration 4): linked to its message at once, its
   * bytes not downloaded; `providerMedia` keeps what the provider gave to fetch them.
   */
  insertFromProvider(
    attachment: NewAttachment & { messageId: number; providerMedia: Record<string, unknown> },
    now = Date.now(),
  ): AttachmentRow {
    const origin = {
      message_id: attachment.messageId,
      origin: 'provider' as const,
      provider_media: JSON.stringify(attachment.providerMedia),
    };
    return this.insertOne.get(insertParams(attachment, origin, now))!;
  }

  /** The company's attachment; another company's id answers undefined, exactly like a missing one. */
  findForCompany(companyId: number, id: number): AttachmentRow | undefined {
    return this.byCompanyAndId.get(companyId, id);
  }

  /** The attachment behind a file URL (the key is the capability; no company is known there). */
  findByStorageKey(storageKey: string): AttachmentRow | undefined {
    return this.byStorageKey.get(storageKey);
  }

  /**
   * Links a free attachment to a message, in the caller's transaction. Callers check
   * `message_id === null` first (a used attachment is a 422 for the client); moving an attachment
   * from one message to another is a programming error and throws.
   */
  attachToMessage(id: number, messageId: number): void {
    if (this.setMessage.run(messageId, id, messageId).changes !== 1) {
      throw new Error(`attachment ${id} does not exist or already belongs to another message`);
    }
  }

  /** The attachments of the given messages, by message then upload order. */
  forMessages(messageIds: readonly number[]): AttachmentRow[] {
    if (messageIds.length === 0) return [];
    return this.byMessages.all(JSON.stringify(messageIds));
  }
}

/** A row to insert: the stored fields, and where the file came from. */
type InsertParams = Omit<AttachmentRow, 'id'> & { origin: 'upload' | 'provider'; provider_media: string | null };

/** The named parameters of the one insert, for an upload or for media a provider described. */
function insertParams(
  attachment: NewAttachment,
  origin: Pick<InsertParams, 'message_id' | 'origin' | 'provider_media'>,
  now: number,
): InsertParams {
  return {
    company_id: attachment.companyId,
    storage_key: attachment.storageKey,
    file_name: attachment.fileName,
    mime_type: attachment.mimeType,
    size: attachment.size,
    width: attachment.width,
    height: attachment.height,
    push_to_talk: Number(attachment.pushToTalk),
    created_at: now,
    ...origin,
  };
}
