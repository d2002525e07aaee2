import type { Db } from '../engine/db.js';

export interface ContactRow {
  id: number;
  company_id: number;
  channel_id: number;
  external_id: string;
  external_public_id: string;
  name: string;
  phone: string | null;
  avatar_url: string;
  is_group: number;
  created_at: number;
  updated_at: number;
}

export interface NewContact {
  companyId: number;
  channelId: number;
  externalId: string;
  externalPublicId: string;
  name: string;
  phone: string | null;
}

/** Contacts: one row per sender per channel. */
export class ContactStore {
  private readonly insertIgnore;
  private readonly byExternalId;
  private readonly byId;
  private readonly updateProfile;

  constructor(db: Db) {
    this.insertIgnore = db.prepare<[number, number, string, string, string, string | null, number, number]>(
      `INSERT INTO contacts (company_id, channel_id, external_id, external_public_id, name, phone, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (channel_id, external_id) DO NOTHING`,
    );
    this.updateProfile = db.prepare<[string, string, string | null, string, number, number, number]>(
      `UPDATE contacts SET name = ?, external_public_id = ?, phone = ?, avatar_url = ?, is_group = ?, updated_at = ? WHERE id = ?`,
    );
    this.byExternalId = db.prepare<[number, string], ContactRow>(
      'SELECT * FROM contacts WHERE channel_id = ? AND external_id = ?',
    );
    this.byId = db.prepare<[number, number], ContactRow>('SELECT * FROM contacts WHERE company_id = ? AND id = ?');
  }

  /** The contact a channel knows by the provider's id. */
  findOnChannel(channelId: number, externalId: string): ContactRow | undefined {
    return this.byExternalId.get(channelId, externalId);
  }

  /** A contact of the company by its id. */
  find(companyId: number, id: number): ContactRow | undefined {
    return this.byId.get(companyId, id);
  }

  /** The contact of a sender on a channel, created when new; `created` says which. */
  findOrCreate(contact: NewContact, now = Date.now()): { contact: ContactRow; created: boolean } {
    // Most senders are known: one read then, the insert only for a new one (still race-free: a
    // concurrent insert makes it do nothing and the read below finds that row).
    const known = this.byExternalId.get(contact.channelId, contact.externalId);
    if (known !== undefined) return { contact: known, created: false };
    const { changes, lastInsertRowid } = this.insertIgnore.run(
      contact.companyId,
      contact.channelId,
      contact.externalId,
      contact.externalPublicId,
      contact.name,
      contact.phone,
      now,
      now,
    );
    if (changes !== 1)
      return { contact: this.byExternalId.get(contact.channelId, contact.externalId)!, created: false };
    // The row just inserted: what was bound, its id and the columns' defaults (a test compares it with a read).
    return {
      contact: {
        id: Number(lastInsertRowid),
        company_id: contact.companyId,
        channel_id: contact.channelId,
        external_id: contact.externalId,
        external_public_id: contact.externalPublicId,
        name: contact.name,
        phone: contact.phone,
        avatar_url: '',
        is_group: 0,
        created_at: now,
        updated_at: now,
      },
      created: true,
    };
  }

  /** Brings a contact's profile up to what the provider reports now; answers it and whether anything changed. */
  refreshProfile(
    contact: ContactRow,
    profile: ContactProfile,
    now = Date.now(),
  ): { contact: ContactRow; changed: boolean } {
    const next = {
      name: profile.name ?? contact.name,
      external_public_id: profile.externalPublicId ?? contact.external_public_id,
      phone: profile.phone === undefined ? contact.phone : profile.phone,
      avatar_url: profile.avatarUrl ?? contact.avatar_url,
      is_group: profile.isGroup === undefined ? contact.is_group : Number(profile.isGroup),
    };
    const changed = (Object.keys(next) as (keyof typeof next)[]).some((key) => next[key] !== contact[key]);
    if (!changed) return { contact, changed };
    this.updateProfile.run(
      next.name,
      next.external_public_id,
      next.phone,
      next.avatar_url,
      next.is_group,
      now,
      contact.id,
    );
    return { contact: { ...contact, ...next, updated_at: now }, changed };
  }
}

/** What a provider reports about a sender; an absent field keeps the stored value. */
export interface ContactProfile {
  name?: string;
  externalPublicId?: string;
  phone?: string | null;
  avatarUrl?: string;
  isGroup?: boolean;
}
