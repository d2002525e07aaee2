import { PROVIDERS } from '../../schemas/v1/channels.js';
import {
  PROVIDER_CAPABILITIES,
  SEND_KINDS,
  type Feature,
  type ProviderCapabilities,
} from '../../schemas/provider-capabilities.js';

/**
 * docs/providers.md, rendered from the capability table (schemas/provider-capabilities.ts).
 * `npm run docs:providers` writes it; test/api/providers.test.ts fails when the file and the table differ.
 */
export function renderProviderDoc(): string {
  const features: [string, (c: ProviderCapabilities) => Feature][] = [
    ['writing first', (c) => c.writingFirst],
    ['templates', (c) => c.templates],
    ['groups', (c) => c.groups],
    ['reactions', (c) => c.reactions],
    ['edits', (c) => c.edits],
    ['deletes', (c) => c.deletes],
    ['read receipts', (c) => c.readReceipts],
  ];
  const featureRows = PROVIDERS.map((p) => {
    const c = PROVIDER_CAPABILITIES[p];
    return [
      `\`${p}\``,
      c.authentication.join(', '),
      c.historySync ? 'yes' : 'no',
      ...features.map(([, of]) => featureCell(of(c))),
    ];
  });
  const attachmentRows = PROVIDERS.map((p) => {
    const rules = PROVIDER_CAPABILITIES[p].attachments;
    return [
      `\`${p}\``,
      ...SEND_KINDS.map((kind) => {
        const rule = rules.find((r) => r.kind === kind);
        if (rule === undefined) return 'no';
        return rule.maxBytes === null ? 'yes' : `${rule.maxBytes / (1024 * 1024)} MiB`;
      }),
    ];
  });
  return [
    '# Providers',
    '',
    '<!-- Generated from schemas/provider-capabilities.ts by `npm run docs:providers`; test/api/providers.test.ts checks it. -->',
    '',
    'What each provider supports, and what the gateway carries of it today. The same table answers',
    '`GET /api/p2/providers` (API token, the same answer for every account), describes that operation in',
    '`/openapi.json`, and is what the API enforces: writing first (`POST /api/p2/messages`), templates,',
    'reactions (`POST|DELETE .../messages/<id>/reactions`), edits (`PATCH .../messages/<id>`), deletes',
    '(`DELETE /api/p2/conversations/<id>/messages`), read receipts (`POST .../conversations/<id>/read`),',
    'sending into a group conversation, how an auth is created, history sync, and the attachments a sent',
    'message may carry.',
    '',
    '## Features',
    '',
    'A cell says whether the provider itself has the feature and, when it has, what the gateway carries:',
    '`no` (the provider has no such thing), `not carried` (the provider has it, the gateway does not carry',
    'it yet), `incoming` (from the provider only), `outgoing` (to the provider only), `both`. Writing first,',
    'a template, a reaction, an edit, a delete or a message into a group through a provider for which the',
    'gateway does not carry it outgoing is a 422 (for a reaction or an edit, `wrong_provider` naming the',
    'provider and the operation); marking a conversation read sends a read receipt only where read receipts',
    'go out.',
    '',
    table(['provider', 'authentication', 'history sync', ...features.map(([name]) => name)], featureRows),
    '',
    'Authentication: `qr` a QR code, `pairing_code` a code shown to type in the app, `code` a code the',
    'provider sends the user, `token` a bot or API token, `vendor_channel_id` the operator token and the',
    "vendor's channel id, `login_password` the account's login and password, `oauth` the provider's",
    'authorization page (an auth created with `provider` alone answers its `oauth_provider_url`).',
    '',
    '## Attachments',
    '',
    'The kinds a sent message may carry for each provider, and the largest file of each kind the provider',
    "takes (`yes`: no limit the gateway knows; the operator's `GATEWAY_ATTACHMENT_MAX_BYTES` applies to every",
    'upload). The kind comes from the detected type: `image/*`, `video/*`, `audio/*` (`voice` when uploaded',
    'with `push_to_talk`), anything else a document. Sending an attachment of another kind, or a larger one,',
    'is a 422 on `attachment_ids`.',
    '',
    table(['provider', ...SEND_KINDS], attachmentRows),
    '',
  ].join('\n');
}

function featureCell(feature: Feature): string {
  if (!feature.provider) return 'no';
  return feature.gateway === 'none' ? 'not carried' : feature.gateway;
}

/** A Markdown table with its columns padded, as prettier writes one. */
function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(3, h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
