import type { WriteFirstProvider } from '../../schemas/v2/messages.js';
import { capabilitiesOf, TEMPLATE_PROVIDERS } from '../../schemas/provider-capabilities.js';
import { presentConversation } from '../presenters/conversation.js';
import type { MessageObject } from '../presenters/message.js';
import { ValidationFailed, type FieldProblem } from '../errors/errors.js';
import type { Store } from '../store/store.js';
import type { TemplateRow } from '../store/resources/templates.js';
import { recordEvent } from './events.js';
import { storeOutgoing, type OutgoingMessage } from './messaging.js';
import type { Presenters } from '../presenters/presenters.js';

export interface WriteFirstRequest {
  provider: WriteFirstProvider;
  phone?: string;
  nickname?: string;
  social_a_id?: string;
  social_a_domain?: string;
  text?: string;
  attachment_ids?: number[];
  biz_template_id?: string;
  substitutions?: string[];
  send_to_crm: boolean;
}

interface Recipient {
  externalId: string;
  publicId: string;
  phone: string | null;
}

/**
 * Writes first to a recipient: finds or creates the contact and the conversation on the company's
 * channel of the provider (a new conversation writes its `create` event) and stores the outgoing
 * message as a send into it. The caller runs it inside store.transaction.
 */
export function writeFirst(
  store: Store,
  companyId: number,
  request: WriteFirstRequest,
  presenters: Presenters,
  now = new Date(),
): MessageObject {
  const recipient = recipientOf(request);
  checkContent(request);
  const channel = store.channels.findByProvider(companyId, request.provider);
  if (channel === undefined) throw ValidationFailed.field('provider', `the company has no ${request.provider} channel`);

  const template = request.biz_template_id === undefined ? undefined : templateFor(store, companyId, request);
  const { contact } = store.contacts.findOrCreate(
    {
      companyId,
      channelId: channel.id,
      externalId: recipient.externalId,
      externalPublicId: recipient.publicId,
      name: recipient.publicId,
      phone: recipient.phone,
    },
    now.getTime(),
  );
  const { conversation, created } = store.conversations.findOrCreate(companyId, channel.id, contact.id, now.getTime());
  if (created) recordEvent(store.outbox, companyId, 'conversation', 'create', presentConversation(conversation), now);

  const outgoing: OutgoingMessage = {
    text: template === undefined ? request.text : renderTemplate(template, request.substitutions ?? []),
    attachmentId: request.attachment_ids?.[0],
    sendToCrm: request.send_to_crm,
    template:
      template === undefined
        ? undefined
        : { bizTemplateId: template.biz_template_id, substitutions: request.substitutions ?? [] },
  };
  return storeOutgoing(store, conversation, outgoing, presenters, now);
}

/** Who the message goes to, by the provider's rules (contract section 4). */
function recipientOf(request: WriteFirstRequest): Recipient {
  const digits = (phone: string) => phone.replace(/^\+/, '');
  switch (request.provider) {
    case 'chat_a':
    case 'chat_d':
    case 'chat_a_business':
      if (request.phone === undefined)
        throw ValidationFailed.field('phone', `phone is required to write first through ${request.provider}`);
      return { externalId: digits(request.phone), publicId: digits(request.phone), phone: digits(request.phone) };
    case 'chat_b_personal':
      if (request.phone !== undefined)
        return { externalId: digits(request.phone), publicId: digits(request.phone), phone: digits(request.phone) };
      if (request.nickname !== undefined) {
        const nickname = request.nickname.replace(/^@/, '');
        return { externalId: `@${nickname.toLowerCase()}`, publicId: nickname, phone: null };
      }
      throw new ValidationFailed([
        { field: 'phone', detail: 'phone or nickname is required to write first through chat_b_personal' },
        { field: 'nickname', detail: 'phone or nickname is required to write first through chat_b_personal' },
      ]);
    case 'social_a_direct':
      if (request.social_a_id !== undefined && request.social_a_domain !== undefined) {
        throw new ValidationFailed([
          { field: 'social_a_id', detail: 'social_a_id and social_a_domain are mutually exclusive: send one' },
          { field: 'social_a_domain', detail: 'social_a_id and social_a_domain are mutually exclusive: send one' },
        ]);
      }
      if (request.social_a_id !== undefined)
        return { externalId: request.social_a_id, publicId: request.social_a_id, phone: null };
      if (request.social_a_domain !== undefined) {
        return {
          externalId: `domain:${request.social_a_domain.toLowerCase()}`,
          publicId: request.social_a_domain,
          phone: null,
        };
      }
      throw new ValidationFailed([
        {
          field: 'social_a_id',
          detail: 'social_a_id or social_a_domain is required to write first through social_a_direct',
        },
        {
          field: 'social_a_domain',
          detail: 'social_a_id or social_a_domain is required to write first through social_a_direct',
        },
      ]);
  }
}

/**
 * Something to send; templates only through the providers that have them (the capability table),
 * which need one to write first.
 */
function checkContent(request: WriteFirstRequest): void {
  const problems: FieldProblem[] = [];
  const business = capabilitiesOf(request.provider).templates.gateway !== 'none';
  if (business && request.biz_template_id === undefined) {
    problems.push({
      field: 'biz_template_id',
      detail: `biz_template_id is required to write first through ${request.provider}`,
    });
  }
  if (!business && request.biz_template_id !== undefined) {
    problems.push({
      field: 'biz_template_id',
      detail: `biz_template_id is only used with ${TEMPLATE_PROVIDERS.join(', ')}`,
    });
  }
  if (request.substitutions !== undefined && request.biz_template_id === undefined) {
    problems.push({ field: 'substitutions', detail: 'substitutions need a biz_template_id' });
  }
  if (!business && (request.text ?? '') === '' && request.attachment_ids === undefined) {
    problems.push({ field: 'text', detail: 'text or attachment_ids is required' });
  }
  if (problems.length > 0) throw new ValidationFailed(problems);
}

function templateFor(store: Store, companyId: number, request: WriteFirstRequest): TemplateRow {
  const template = store.templates.findByBizId(companyId, request.biz_template_id!);
  if (template === undefined)
    throw ValidationFailed.field(
      'biz_template_id',
      `template ${request.biz_template_id} was not found for this company`,
    );
  const given = request.substitutions?.length ?? 0;
  if (given !== template.substitutions_count) {
    throw ValidationFailed.field(
      'substitutions',
      `template ${template.biz_template_id} takes ${template.substitutions_count} substitutions, got ${given}`,
    );
  }
  return template;
}

/** The template body with {{1}}, {{2}}… replaced by the substitutions. */
export function renderTemplate(template: Pick<TemplateRow, 'body'>, substitutions: readonly string[]): string {
  return template.body.replace(/\{\{(\d+)\}\}/g, (marker, n: string) => substitutions[Number(n) - 1] ?? marker);
}
