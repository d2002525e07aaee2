import { OutboxStore } from '../src/store/pipeline/outbox.js';
import type { RelayRow } from '../src/store/pipeline/outbox-rows.js';

/**
 * Every message each outbox published, in publish order, kept for test/helpers/events.ts: in
 * embedded mode the events of a group commit are published in that commit and leave no outbox
 * row, so the table alone does not show every event emitted. Observes the real call, changes
 * nothing: `published` runs as it would, after the record.
 */
export const publishedBy = new WeakMap<OutboxStore, RelayRow[]>();

const published = OutboxStore.prototype.published;
OutboxStore.prototype.published = function (this: OutboxStore, rows: readonly RelayRow[]): void {
  let record = publishedBy.get(this);
  if (record === undefined) publishedBy.set(this, (record = []));
  record.push(...rows);
  published.call(this, rows);
};
