import type { Db } from '../engine/db.js';

export type WebFace = 'console' | 'portal';

export interface WebSessionRow {
  token_sha256: string;
  face: WebFace;
  account_id: number | null;
  company_id: number | null;
  credential_sha256: string | null;
  created_at: number;
  expires_at: number;
  hard_expires_at: number;
}

export interface NewWebSession {
  tokenSha256: string;
  face: WebFace;
  accountId: number | null;
  companyId: number | null;
  credentialSha256: string | null;
  expiresAt: number;
  hardExpiresAt: number;
}

export interface PortalLinkRow {
  token_sha256: string;
  account_id: number;
  company_id: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/**
 * Sessions of the browser faces (console, portal) and the single-use links that open a portal
 * session. Only SHA-256 digests of their tokens are stored; the tokens live in the browser alone.
 * Expired rows are deleted whenever a new session or link is written (the tables stay small).
 */
export class WebSessionStore {
  private readonly insertSession;
  private readonly sessionByDigest;
  private readonly extendSession;
  private readonly deleteSession;
  private readonly deleteExpiredSessions;
  private readonly insertLink;
  private readonly useLink;
  private readonly deleteExpiredLinks;

  constructor(db: Db) {
    this.insertSession = db.prepare<NewWebSession & { now: number }>(
      `INSERT INTO web_sessions (token_sha256, face, account_id, company_id, credential_sha256, created_at, expires_at, hard_expires_at)
       VALUES (@tokenSha256, @face, @accountId, @companyId, @credentialSha256, @now, @expiresAt, @hardExpiresAt)`,
    );
    this.sessionByDigest = db.prepare<[string, WebFace, number], WebSessionRow>(
      'SELECT * FROM web_sessions WHERE token_sha256 = ? AND face = ? AND expires_at > ?',
    );
    this.extendSession = db.prepare<[number, string]>(
      'UPDATE web_sessions SET expires_at = min(?, hard_expires_at) WHERE token_sha256 = ?',
    );
    this.deleteSession = db.prepare<[string]>('DELETE FROM web_sessions WHERE token_sha256 = ?');
    this.deleteExpiredSessions = db.prepare<[number]>('DELETE FROM web_sessions WHERE expires_at <= ?');
    this.insertLink = db.prepare<[string, number, number, number, number]>(
      'INSERT INTO portal_links (token_sha256, account_id, company_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
    );
    // Compare-and-set: of two requests presenting the same link, exactly one gets the row.
    this.useLink = db.prepare<[number, string, number], PortalLinkRow>(
      'UPDATE portal_links SET used_at = ? WHERE token_sha256 = ? AND used_at IS NULL AND expires_at > ? RETURNING *',
    );
    this.deleteExpiredLinks = db.prepare<[number]>('DELETE FROM portal_links WHERE expires_at <= ?');
  }

  createSession(session: NewWebSession, now: number): void {
    this.deleteExpiredSessions.run(now);
    this.insertSession.run({ ...session, now });
  }

  /** The live session of this face with this token digest, or undefined (unknown, expired, other face). */
  findSession(tokenSha256: string, face: WebFace, now: number): WebSessionRow | undefined {
    return this.sessionByDigest.get(tokenSha256, face, now);
  }

  /** Moves the session's end to `expiresAt`, never past its hard end. */
  extend(tokenSha256: string, expiresAt: number): void {
    this.extendSession.run(expiresAt, tokenSha256);
  }

  endSession(tokenSha256: string): void {
    this.deleteSession.run(tokenSha256);
  }

  createPortalLink(
    link: { tokenSha256: string; accountId: number; companyId: number; expiresAt: number },
    now: number,
  ): void {
    this.deleteExpiredLinks.run(now);
    this.insertLink.run(link.tokenSha256, link.accountId, link.companyId, now, link.expiresAt);
  }

  /** Marks the link used and answers it; undefined when it is unknown, used already or expired. */
  usePortalLink(tokenSha256: string, now: number): PortalLinkRow | undefined {
    return this.useLink.get(now, tokenSha256, now);
  }
}
