import { unixSeconds } from '../lib/time.js';
import type { ChannelRow } from '../store/resources/channels.js';
import type { CompanyRow } from '../store/resources/companies.js';
import type { V1JobRow } from '../store/resources/v1-jobs.js';

/** The contract's Company (v1). */
export function presentCompany(row: CompanyRow) {
  return {
    external_id: row.id,
    name: row.name,
    phone: row.phone,
    description: row.description,
    webhook_url: row.webhook_url,
    hidden: row.hidden === 1,
  };
}

/** The contract's Channel list item (v1): nothing else of a channel is shown, least of all its credentials. */
export function presentChannelItem(row: ChannelRow) {
  return { external_id: row.id, provider: row.provider };
}

/** A v1 write-first delivery job (schemas/v1/responses.ts, v1JobObject); `provider` is the channel's. */
export function presentV1Job(row: V1JobRow, provider: string) {
  return {
    id: row.id,
    company_id: row.company_id,
    channel: { id: row.channel_id, type: provider },
    state: row.state,
    conversation_id: row.conversation_id,
    message_id: row.message_id,
    details:
      row.state === 'trying_deliver'
        ? null
        : row.state === 'delivered'
          ? { result: 'DELIVERED' as const }
          : { result: 'NOT DELIVERED' as const, reason: row.reason ?? 'The provider refused the message.' },
    created_at: unixSeconds(row.created_at),
  };
}
