import type { ChannelRow } from '../store/channels.js';
import type { CompanyRow } from '../store/companies.js';

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
