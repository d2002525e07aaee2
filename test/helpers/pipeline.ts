// The pipeline's test harness: secrets, companies and webhook endpoints written straight to the store,
// and events appended by hand (their bodies are no real event's, so no schema holds them).
import { randomBytes } from 'node:crypto';
import { appendEvent, newEventId } from '../../src/domain/events.js';
import type { EventRecord } from '../../src/streams/catalog.js';
import type { Store } from '../../src/store/store.js';
import { handMadeEvents } from './events.js';

export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export function insertCompany(store: Store, name = 'Acme'): number {
  return store.companies.insert({ accountId: 1, name, phone: null, description: null, webhookUrl: null }).id;
}

/** Webhook endpoints are managed by the v2 API; tests of the pipeline insert them directly. */
export function insertEndpoint(
  store: Store,
  companyId: number,
  url: string,
  options: { secret?: string; previousSecret?: string; previousExpiresAt?: number; eventTypes?: string[] } = {},
): { id: number; secret: string } {
  const secret = options.secret ?? newSecret();
  const now = Date.now();
  const row = store.db
    .prepare(
      `INSERT INTO webhook_endpoints (company_id, source, url, secret, previous_secret, previous_secret_expires_at, event_types, created_at, updated_at)
       VALUES (?, 'api', ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    )
    .get(
      companyId,
      url,
      secret,
      options.previousSecret ?? null,
      options.previousExpiresAt ?? null,
      options.eventTypes ? JSON.stringify(options.eventTypes) : null,
      now,
      now,
    ) as {
    id: number;
  };
  return { id: row.id, secret };
}

export function emitEvent(
  store: Store,
  companyId: number,
  name = 'message.create',
  object: Record<string, unknown> = { id: 1, text: 'hi' },
): EventRecord {
  const id = newEventId();
  handMadeEvents.add(id);
  const [type, event] = name.split('.');
  const createdAt = new Date().toISOString();
  return store.transaction(() =>
    appendEvent(store.outbox, {
      id,
      company_id: companyId,
      name,
      created_at: createdAt,
      body: { id, event, type, created_at: createdAt, object },
    }),
  );
}
