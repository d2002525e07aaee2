import type { DestinationType } from '../../../schemas/objects/destination.js';
import type Database from 'better-sqlite3';
import type { Db } from '../engine/db.js';
import type { DeliveryRow, DeliveryStatus } from './delivery-rows.js';
import { takePage, type PageOf } from '../../lib/paging.js';
import type { EndpointOrdering } from '../resources/webhooks.js';

/** A stored status, or `held`: pending and held (then `pending` means pending and not held). */
export type DeliveryFilterStatus = DeliveryStatus | 'held';

/** Which deliveries an operator or a company looks at (the admin API, the portal, a bulk replay). */
export interface DeliveryFilter {
  company_id?: number;
  endpoint_id?: number;
  status?: DeliveryFilterStatus;
  event_type?: string;
  /** The event's id: the `webhook-id` header its deliveries carried. */
  event_id?: string;
  /** created_at bounds, unix ms, inclusive. */
  since?: number;
  until?: number;
}

/** An endpoint of a company with its delivery health, as the portal and the admin API show it. */
export interface EndpointHealthRow {
  id: number;
  company_id: number;
  /** For a broker endpoint, its target without credentials. */
  url: string;
  type: DestinationType;
  /** A broker endpoint's settings as stored (JSON, credentials included), or null. */
  destination: string | null;
  active: number;
  disabled_reason: string | null;
  last_success_at: number | null;
  last_failure_at: number | null;
  failing_since: number | null;
  consecutive_failures: number | null;
  disabled_at: number | null;
  ordering: EndpointOrdering;
  rate_limit: number | null;
  /** Its own retry schedule and payload filter, as stored (JSON), or null. */
  retry_schedule: string | null;
  filter: string | null;
  /** Its held deliveries. */
  held: number;
}

/**
 * The reads of deliveries for the people fixing them: pages of deliveries by filter, their count,
 * the walk of a bulk replay, and each endpoint's health.
 */
export class DeliverySearch {
  private readonly healthByCompany;
  private readonly filterStatements = new Map<string, Database.Statement<Record<string, unknown>, unknown>>();

  constructor(private readonly db: Db) {
    this.healthByCompany = db.prepare<[number], EndpointHealthRow>(
      `SELECT e.id, e.company_id, e.url, e.type, e.destination, e.active, e.disabled_reason, h.last_success_at, h.last_failure_at, h.failing_since,
              h.consecutive_failures, h.disabled_at, e.ordering, e.rate_limit, e.retry_schedule, e.filter,
              (SELECT count(*) FROM webhook_deliveries d INDEXED BY webhook_deliveries_held
               WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.held_reason IS NOT NULL) AS held
       FROM webhook_endpoints e LEFT JOIN webhook_endpoint_health h ON h.endpoint_id = e.id
       WHERE e.company_id = ? ORDER BY e.id`,
    );
  }

  /** Deliveries matching the filter, newest first, strictly before `beforeSeq`. */
  list(filter: DeliveryFilter, beforeSeq: number | undefined, limit: number): PageOf<DeliveryRow> {
    const { where, params } = filterSql(filter);
    if (beforeSeq !== undefined) {
      where.push('seq < @before_seq');
      params.before_seq = beforeSeq;
    }
    const sql = `SELECT * FROM webhook_deliveries ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT @limit`;
    return takePage(this.filtered<DeliveryRow>(sql).all({ ...params, limit: limit + 1 }), limit);
  }

  /** Deliveries matching the filter in ascending order past `afterSeq` (bulk replay walks them). */
  scan(filter: DeliveryFilter, afterSeq: number, limit: number): DeliveryRow[] {
    const { where, params } = filterSql(filter);
    where.push('seq > @after_seq');
    const sql = `SELECT * FROM webhook_deliveries WHERE ${where.join(' AND ')} ORDER BY seq ASC LIMIT @limit`;
    return this.filtered<DeliveryRow>(sql).all({ ...params, after_seq: afterSeq, limit });
  }

  count(filter: DeliveryFilter): number {
    const { where, params } = filterSql(filter);
    const sql = `SELECT count(*) AS n FROM webhook_deliveries ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
    return this.filtered<{ n: number }>(sql).get(params)!.n;
  }

  /**
   * The statement of a filter query. Its SQL varies only with which filters are set (a few dozen
   * shapes at most), so each shape is prepared once and kept.
   */
  private filtered<R>(sql: string): Database.Statement<Record<string, unknown>, R> {
    let statement = this.filterStatements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare<Record<string, unknown>, unknown>(sql);
      this.filterStatements.set(sql, statement);
    }
    return statement as Database.Statement<Record<string, unknown>, R>;
  }

  endpointHealth(companyId: number): EndpointHealthRow[] {
    return this.healthByCompany.all(companyId);
  }
}

/** Filter columns are fixed names; values are always bound parameters. */
function filterSql(filter: DeliveryFilter): { where: string[]; params: Record<string, unknown> } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (filter.company_id !== undefined) where.push('company_id = @company_id');
  if (filter.endpoint_id !== undefined) where.push('endpoint_id = @endpoint_id');
  if (filter.status === 'held') where.push("status = 'pending' AND held_reason IS NOT NULL");
  else if (filter.status === 'pending') where.push("status = 'pending' AND held_reason IS NULL");
  else if (filter.status !== undefined) where.push('status = @status');
  if (filter.event_type !== undefined) where.push('event_name = @event_type');
  if (filter.event_id !== undefined) where.push('event_id = @event_id');
  if (filter.since !== undefined) where.push('created_at >= @since');
  if (filter.until !== undefined) where.push('created_at <= @until');
  for (const [key, value] of Object.entries(filter)) if (value !== undefined) params[key] = value;
  // Named in the SQL only for delivered and failed.
  if (filter.status === 'held' || filter.status === 'pending') delete params.status;
  return { where, params };
}
