import { randomBytes } from 'node:crypto';
import type { Db } from '../engine/db.js';
import { generateSigningKey, signingAlgorithmOf, type SigningAlgorithm } from '../../lib/signing-keys.js';
import type { EndpointFilter } from '../../../schemas/objects/endpoint-filter.js';
import type { DestinationType } from '../../../schemas/objects/destination.js';

export interface WebhookEndpointRow {
  id: number;
  company_id: number;
  /** 'company': the v1 webhook_url of the company, mirrored; 'api': created at /api/p2/.../webhooks. */
  source: 'company' | 'api';
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  /** JSON array of event names (`message.create`), or null for every event. */
  event_types: string | null;
  active: number;
  disabled_reason: string | null;
  /** 'strict': each delivery waits until every earlier one of the endpoint was delivered or failed. */
  ordering: EndpointOrdering;
  /** Deliveries per second, or null for no limit. */
  rate_limit: number | null;
  /** Payload filter (src/domain/endpoint-filter.ts) as JSON text, or null for none. */
  filter: string | null;
  /** JSON array of the seconds before each retry, or null for the gateway-wide schedule. */
  retry_schedule: string | null;
  /** Where its events go: an HTTP POST to `url`, or a broker (then `url` is its target without credentials). */
  type: DestinationType;
  /** A broker destination's settings as JSON text, credentials included (never answered); null for a webhook. */
  destination: string | null;
  /** Strict ordering: the delivery let out last (the ones after it are held until it ended). */
  head_delivery_id: string | null;
  created_at: number;
  updated_at: number;
}

export type EndpointOrdering = 'default' | 'strict';

/** A new signing secret in the Standard Webhooks format: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** A new secret of the algorithm given: a `whsec_` secret, or a `whsk_` ed25519 key. */
function newSecretFor(algorithm: SigningAlgorithm): string {
  return algorithm === 'ed25519' ? generateSigningKey() : generateWebhookSecret();
}

export interface NewWebhookEndpoint {
  companyId: number;
  source: 'company' | 'api';
  url: string;
  /** null: every event. */
  eventTypes: string[] | null;
  active: boolean;
  ordering?: EndpointOrdering;
  rateLimit?: number | null;
  filter?: EndpointFilter | null;
  retrySchedule?: number[] | null;
  /** 'ed25519': a `whsk_` key pair signs (`v1a`); else a `whsec_` secret (`v1`). */
  signingAlgorithm?: SigningAlgorithm;
  /** 'webhook' by default; a broker type comes with its settings (`destination`). */
  type?: DestinationType;
  destination?: object | null;
}

export interface WebhookEndpointChanges {
  url?: string;
  eventTypes?: string[] | null;
  active?: boolean;
  /** Why an endpoint being deactivated is disabled (kept as it was when not given). */
  disabledReason?: string;
  ordering?: EndpointOrdering;
  rateLimit?: number | null;
  filter?: EndpointFilter | null;
  retrySchedule?: number[] | null;
  /** A broker endpoint's new settings, replacing the old ones whole (its `url` changes with them). */
  destination?: object;
}

/** Webhook endpoints of companies. */
export class WebhookEndpointStore {
  private readonly byCompany;
  private readonly byId;
  private readonly byIdAlone;
  private readonly companyRow;
  private readonly countByCompany;
  private readonly insertOne;
  private readonly updateOne;
  private readonly deleteOne;
  private readonly rotateOne;
  private readonly disabledCount;

  constructor(db: Db) {
    this.disabledCount = db.prepare<[], { n: number }>(
      `SELECT count(*) AS n FROM webhook_endpoints e JOIN webhook_endpoint_health h ON h.endpoint_id = e.id
       WHERE e.active = 0 AND h.disabled_at IS NOT NULL`,
    );
    this.byCompany = db.prepare<[number], WebhookEndpointRow>(
      'SELECT * FROM webhook_endpoints WHERE company_id = ? ORDER BY id',
    );
    this.byId = db.prepare<[number, number], WebhookEndpointRow>(
      'SELECT * FROM webhook_endpoints WHERE company_id = ? AND id = ?',
    );
    this.byIdAlone = db.prepare<[number], WebhookEndpointRow>('SELECT * FROM webhook_endpoints WHERE id = ?');
    this.companyRow = db.prepare<[number], WebhookEndpointRow>(
      "SELECT * FROM webhook_endpoints WHERE company_id = ? AND source = 'company'",
    );
    this.countByCompany = db.prepare<[number], { n: number }>(
      'SELECT count(*) AS n FROM webhook_endpoints WHERE company_id = ?',
    );
    this.insertOne = db.prepare<
      [
        number,
        string,
        string,
        string,
        string | null,
        number,
        string,
        number | null,
        string | null,
        string | null,
        string,
        string | null,
        number,
        number,
      ],
      WebhookEndpointRow
    >(
      `INSERT INTO webhook_endpoints (company_id, source, url, secret, event_types, active, ordering, rate_limit, filter, retry_schedule, type, destination, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    );
    this.updateOne = db.prepare<
      {
        id: number;
        url: string;
        event_types: string | null;
        active: number;
        disabled_reason: string | null;
        ordering: EndpointOrdering;
        rate_limit: number | null;
        filter: string | null;
        retry_schedule: string | null;
        destination: string | null;
        updated_at: number;
      },
      WebhookEndpointRow
    >(
      `UPDATE webhook_endpoints SET url = @url, event_types = @event_types, active = @active,
         disabled_reason = @disabled_reason, ordering = @ordering, rate_limit = @rate_limit,
         filter = @filter, retry_schedule = @retry_schedule, destination = @destination, updated_at = @updated_at
       WHERE id = @id RETURNING *`,
    );
    this.deleteOne = db.prepare<[number]>('DELETE FROM webhook_endpoints WHERE id = ?');
    this.rotateOne = db.prepare<[number, string, number, number], WebhookEndpointRow>(
      `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = ?, secret = ?, updated_at = ?
       WHERE id = ? RETURNING *`,
    );
  }

  /** Endpoints the gateway itself disabled (410 Gone, or failing too long) and nobody enabled again. */
  countDisabledByGateway(): number {
    return this.disabledCount.get()!.n;
  }

  list(companyId: number): WebhookEndpointRow[] {
    return this.byCompany.all(companyId);
  }

  find(companyId: number, id: number): WebhookEndpointRow | undefined {
    return this.byId.get(companyId, id);
  }

  /** An endpoint by its id alone (the core's own work, never a request naming a company). */
  findById(id: number): WebhookEndpointRow | undefined {
    return this.byIdAlone.get(id);
  }

  /** Endpoints of a company, active or not, its webhook_url mirror included: what the limit counts. */
  count(companyId: number): number {
    return this.countByCompany.get(companyId)!.n;
  }

  /** The mirror of the company's v1 webhook_url, if it has one. */
  companyEndpoint(companyId: number): WebhookEndpointRow | undefined {
    return this.companyRow.get(companyId);
  }

  /** Inserts an endpoint with a freshly generated secret (or ed25519 key). The caller checks the limit in the same transaction. */
  create(endpoint: NewWebhookEndpoint, now = Date.now()): WebhookEndpointRow {
    return this.insertOne.get(
      endpoint.companyId,
      endpoint.source,
      endpoint.url,
      newSecretFor(endpoint.signingAlgorithm ?? 'hmac-sha256'),
      endpoint.eventTypes === null ? null : JSON.stringify(endpoint.eventTypes),
      Number(endpoint.active),
      endpoint.ordering ?? 'default',
      endpoint.rateLimit ?? null,
      endpoint.filter == null ? null : JSON.stringify(endpoint.filter),
      endpoint.retrySchedule == null ? null : JSON.stringify(endpoint.retrySchedule),
      endpoint.type ?? 'webhook',
      endpoint.destination == null ? null : JSON.stringify(endpoint.destination),
      now,
      now,
    )!;
  }

  /** Applies the given changes; activating an endpoint clears the reason it was disabled for. */
  update(row: WebhookEndpointRow, changes: WebhookEndpointChanges, now = Date.now()): WebhookEndpointRow {
    const active = changes.active === undefined ? row.active : Number(changes.active);
    return this.updateOne.get({
      id: row.id,
      url: changes.url ?? row.url,
      event_types:
        changes.eventTypes === undefined
          ? row.event_types
          : changes.eventTypes === null
            ? null
            : JSON.stringify(changes.eventTypes),
      active,
      disabled_reason: active === 1 ? null : (changes.disabledReason ?? row.disabled_reason),
      ordering: changes.ordering ?? row.ordering,
      rate_limit: changes.rateLimit === undefined ? row.rate_limit : changes.rateLimit,
      filter:
        changes.filter === undefined ? row.filter : changes.filter === null ? null : JSON.stringify(changes.filter),
      retry_schedule:
        changes.retrySchedule === undefined
          ? row.retry_schedule
          : changes.retrySchedule === null
            ? null
            : JSON.stringify(changes.retrySchedule),
      destination: changes.destination === undefined ? row.destination : JSON.stringify(changes.destination),
      updated_at: now,
    })!;
  }

  delete(id: number): boolean {
    return this.deleteOne.run(id).changes === 1;
  }

  /**
   * Gives the endpoint a new secret of the same algorithm; the current one becomes the previous
   * secret, signing until `previousExpiresAt` (a secret replaced earlier stops at once).
   */
  rotate(id: number, previousExpiresAt: number, now = Date.now()): WebhookEndpointRow | undefined {
    const current = this.byIdAlone.get(id);
    if (current === undefined) return undefined;
    return this.rotateOne.get(previousExpiresAt, newSecretFor(signingAlgorithmOf(current.secret)), now, id);
  }
}
