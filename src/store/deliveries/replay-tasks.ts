import { randomBytes } from 'node:crypto';
import type { Db } from '../engine/db.js';
import type { DeliveryFilter } from './delivery-search.js';

export interface ReplayTaskRow {
  id: string;
  filter: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  total: number;
  enqueued: number;
  cursor_seq: number;
  error: string | null;
  created_at: number;
  updated_at: number;
}

/** Bulk replays asked for in the admin API, worked through by the ReplayTaskWorker. */
export class ReplayTaskStore {
  private readonly insertOne;
  private readonly byId;
  private readonly nextOpen;
  private readonly progressOne;
  private readonly finishOne;
  private readonly cancelOne;

  constructor(db: Db) {
    this.insertOne = db.prepare<[string, string, number, number, number], ReplayTaskRow>(
      `INSERT INTO replay_tasks (id, filter, status, total, created_at, updated_at) VALUES (?, ?, 'queued', ?, ?, ?) RETURNING *`,
    );
    this.byId = db.prepare<[string], ReplayTaskRow>('SELECT * FROM replay_tasks WHERE id = ?');
    this.nextOpen = db.prepare<[], ReplayTaskRow>(
      "SELECT * FROM replay_tasks WHERE status IN ('queued', 'running') ORDER BY created_at LIMIT 1",
    );
    // Progress and the end apply to an open task only: a task cancelled while its page was on its
    // way stays cancelled (the page already published is counted nowhere, and nothing follows it).
    this.progressOne = db.prepare<[number, number, number, string]>(
      "UPDATE replay_tasks SET status = 'running', enqueued = enqueued + ?, cursor_seq = ?, updated_at = ? WHERE id = ? AND status IN ('queued', 'running')",
    );
    this.finishOne = db.prepare<[string, string | null, number, string]>(
      "UPDATE replay_tasks SET status = ?, error = ?, updated_at = ? WHERE id = ? AND status IN ('queued', 'running')",
    );
    this.cancelOne = db.prepare<[number, string], ReplayTaskRow>(
      "UPDATE replay_tasks SET status = 'cancelled', updated_at = ? WHERE id = ? AND status IN ('queued', 'running') RETURNING *",
    );
  }

  create(filter: DeliveryFilter, total: number, now: number): ReplayTaskRow {
    return this.insertOne.get(`rpl_${randomBytes(12).toString('hex')}`, JSON.stringify(filter), total, now, now)!;
  }

  find(id: string): ReplayTaskRow | undefined {
    return this.byId.get(id);
  }

  /** The oldest task not finished yet (a restart resumes it from its cursor). */
  next(): ReplayTaskRow | undefined {
    return this.nextOpen.get();
  }

  progress(id: string, enqueued: number, cursorSeq: number, now: number): void {
    this.progressOne.run(enqueued, cursorSeq, now, id);
  }

  finish(id: string, status: 'completed' | 'failed', error: string | null, now: number): void {
    this.finishOne.run(status, error, now, id);
  }

  /**
   * Stops an open task: the worker picks no further page of it. Answers the cancelled task, or
   * undefined when it is not open (finished, cancelled already, or unknown).
   */
  cancel(id: string, now: number): ReplayTaskRow | undefined {
    return this.cancelOne.get(now, id);
  }
}
