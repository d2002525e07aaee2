import type { ChannelRow } from '../store/resources/channels.js';
import type { Store } from '../store/store.js';
import type { ProviderTemplate } from './connector.js';

/**
 * Writes the templates a provider listed for a channel, in one transaction: each one inserted or
 * updated in the provider's order (`position`), and the channel's templates the provider no longer
 * lists removed. Answers how many were synced and how many removed.
 */
export function storeSyncedTemplates(
  store: Store,
  channel: ChannelRow,
  templates: readonly ProviderTemplate[],
): { synced: number; removed: number } {
  return store.transaction(() => {
    const now = Date.now();
    templates.forEach((t, position) =>
      store.templates.upsert(
        {
          company_id: channel.company_id,
          channel_id: channel.id,
          name: t.name,
          body: t.body,
          biz_template_id: t.id,
          language: t.language,
          substitutions_count: substitutionsCount(t.body),
          header_content_type: t.header_content_type,
          header: t.header,
          namespace: t.namespace,
          position,
        },
        now,
      ),
    );
    return {
      synced: templates.length,
      removed: store.templates.removeOthers(
        channel.id,
        templates.map((t) => t.id),
      ),
    };
  });
}

/** The number of substitutions a body takes: its highest `{{n}}` marker (0 without markers). */
export function substitutionsCount(body: string): number {
  let highest = 0;
  for (const match of body.matchAll(/\{\{\s*(\d+)\s*\}\}/g)) highest = Math.max(highest, Number(match[1]));
  return highest;
}
