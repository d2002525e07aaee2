import type { Db } from './db.js';

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
  created_at: number;
  updated_at: number;
}

/** Webhook endpoints of companies. */
export class WebhookEndpointStore {
  private readonly byCompany;
  private readonly activeByCompany;

  constructor(db: Db) {
    this.byCompany = db.prepare<[number], WebhookEndpointRow>('SELECT * FROM webhook_endpoints WHERE company_id = ? ORDER BY id');
    this.activeByCompany = db.prepare<[number], WebhookEndpointRow>(
      'SELECT * FROM webhook_endpoints WHERE company_id = ? AND active = 1 ORDER BY id',
    );
  }

  list(companyId: number): WebhookEndpointRow[] {
    return this.byCompany.all(companyId);
  }

  /** Active endpoints of a company (the dispatcher still filters them by event name). */
  active(companyId: number): WebhookEndpointRow[] {
    return this.activeByCompany.all(companyId);
  }
}

/** Whether an endpoint wants an event of this name. */
export function wantsEvent(endpoint: Pick<WebhookEndpointRow, 'event_types'>, name: string): boolean {
  if (endpoint.event_types === null) return true;
  return (JSON.parse(endpoint.event_types) as string[]).includes(name);
}
