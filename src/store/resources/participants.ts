import type { Db } from '../engine/db.js';

/**
 * SQL for the JSON array of a group conversation's participants, oldest first, each as its events
 * show a contact (`id`, `name`, `phone`, `avatar_url`, `external_id`, `external_public_id`).
 * `conversationId` is the SQL naming the conversation's id (a column, or `?`).
 */
export const participantsJson = (conversationId: string): string => `(
  SELECT coalesce(json_group_array(json(p)), '[]') FROM (
    SELECT json_object('id', contacts.id, 'name', contacts.name, 'phone', contacts.phone,
             'avatar_url', contacts.avatar_url, 'external_id', contacts.external_id,
             'external_public_id', contacts.external_public_id) AS p
    FROM conversation_participants
    JOIN contacts ON contacts.id = conversation_participants.contact_id
    WHERE conversation_participants.conversation_id = ${conversationId}
    ORDER BY conversation_participants.created_at, conversation_participants.contact_id))`;

/** The participants of group conversations: the contacts that wrote in them. */
export class ParticipantStore {
  private readonly insertIgnore;
  private readonly listJson;

  constructor(db: Db) {
    this.insertIgnore = db.prepare<[number, number, number]>(
      `INSERT INTO conversation_participants (conversation_id, contact_id, created_at) VALUES (?, ?, ?)
       ON CONFLICT (conversation_id, contact_id) DO NOTHING`,
    );
    this.listJson = db.prepare<[number], { participants: string }>(`SELECT ${participantsJson('?')} AS participants`);
  }

  /** Adds a contact to a conversation's participants; answers whether it is new there. */
  add(conversationId: number, contactId: number, now = Date.now()): boolean {
    return this.insertIgnore.run(conversationId, contactId, now).changes === 1;
  }

  /** The participants of a conversation as JSON text (participantsJson). */
  json(conversationId: number): string {
    return this.listJson.get(conversationId)!.participants;
  }
}
