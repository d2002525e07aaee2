import type { Db } from '../engine/db.js';

export type V1JobState = 'trying_deliver' | 'delivered' | 'not_delivered';

export interface V1JobRow {
  id: number;
  company_id: number;
  channel_id: number;
  conversation_id: number;
  message_id: number;
  send_job_id: string;
  state: V1JobState;
  reason: string | null;
  created_at: number;
  finished_at: number | null;
}

export interface NewV1Job {
  companyId: number;
  channelId: number;
  conversationId: number;
  messageId: number;
  sendJobId: string;
}

/** The delivery jobs of v1 write-first (migration 11). */
export class V1JobStore {
  private readonly insertOne;
  private readonly byId;
  private readonly bySendJob;
  private readonly idByMessage;
  private readonly finishOne;

  constructor(db: Db) {
    this.insertOne = db.prepare<[number, number, number, number, string, number], V1JobRow>(
      `INSERT INTO v1_jobs (company_id, channel_id, conversation_id, message_id, send_job_id, state, created_at)
       VALUES (?, ?, ?, ?, ?, 'trying_deliver', ?) RETURNING *`,
    );
    this.byId = db.prepare<[number, number, number], V1JobRow>(
      'SELECT * FROM v1_jobs WHERE company_id = ? AND channel_id = ? AND id = ?',
    );
    this.bySendJob = db.prepare<[string], V1JobRow>('SELECT * FROM v1_jobs WHERE send_job_id = ?');
    this.idByMessage = db.prepare<[number], { id: number }>('SELECT id FROM v1_jobs WHERE message_id = ?');
    this.finishOne = db.prepare<[V1JobState, string | null, number, number], V1JobRow>(
      `UPDATE v1_jobs SET state = ?, reason = ?, finished_at = ? WHERE id = ? AND state = 'trying_deliver' RETURNING *`,
    );
  }

  insert(job: NewV1Job, now = Date.now()): V1JobRow {
    return this.insertOne.get(job.companyId, job.channelId, job.conversationId, job.messageId, job.sendJobId, now)!;
  }

  /** A job of this company and channel, or undefined (another company's job answers like a missing one). */
  find(companyId: number, channelId: number, id: number): V1JobRow | undefined {
    return this.byId.get(companyId, channelId, id);
  }

  findBySendJob(sendJobId: string): V1JobRow | undefined {
    return this.bySendJob.get(sendJobId);
  }

  /** The id of the job a write-first message was sent by, or null for any other message. */
  jobIdOfMessage(messageId: number): number | null {
    return this.idByMessage.get(messageId)?.id ?? null;
  }

  /** Moves a job still trying to deliver to its final state; undefined when it had one already. */
  finish(
    id: number,
    state: Exclude<V1JobState, 'trying_deliver'>,
    reason: string | null,
    now = Date.now(),
  ): V1JobRow | undefined {
    return this.finishOne.get(state, reason, now, id);
  }
}
