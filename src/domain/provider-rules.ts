import { PROVIDERS, type Provider } from '../../schemas/v1/channels.js';
import { capabilitiesOf, type SendKind } from '../../schemas/provider-capabilities.js';
import { ValidationFailed } from '../errors/errors.js';
import type { AttachmentRow } from '../store/resources/attachments.js';

/** How a provider is asked to send an attachment, from its detected type. */
export function sendKindOf(attachment: Pick<AttachmentRow, 'mime_type' | 'push_to_talk'>): SendKind {
  if (attachment.mime_type.startsWith('image/')) return 'image';
  if (attachment.mime_type.startsWith('video/')) return 'video';
  if (attachment.mime_type.startsWith('audio/')) return attachment.push_to_talk === 1 ? 'voice' : 'audio';
  return 'document';
}

/**
 * Refuses (422 on `field`) an attachment the provider does not take: a kind it has no way to send,
 * or a file above its size for that kind (schemas/provider-capabilities.ts).
 */
export function assertAttachmentFits(
  provider: string,
  attachment: Pick<AttachmentRow, 'id' | 'mime_type' | 'push_to_talk' | 'size'>,
  field: string,
): void {
  if (!(PROVIDERS as readonly string[]).includes(provider)) return;
  const rules = capabilitiesOf(provider as Provider).attachments;
  const kind = sendKindOf(attachment);
  const rule = rules.find((r) => r.kind === kind);
  if (rule === undefined) {
    const taken = rules.map((r) => r.kind).join(', ') || 'none';
    throw ValidationFailed.field(
      field,
      `attachment ${attachment.id} is ${article(kind)} ${kind}; ${provider} takes ${taken} (GET /api/p2/providers)`,
    );
  }
  if (rule.maxBytes !== null && attachment.size > rule.maxBytes) {
    throw ValidationFailed.field(
      field,
      `attachment ${attachment.id} is ${attachment.size} bytes; ${provider} takes ${kind} files of at most ${rule.maxBytes} bytes`,
    );
  }
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
}
