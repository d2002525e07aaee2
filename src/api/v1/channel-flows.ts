import {
  confirmChatBPersonalBody,
  confirmSocialCBody,
  enablePageBody,
  requestCodeBody,
  userExistsQuery,
  v1ConversationBody,
} from '../../../schemas/v1/flows.js';
import type { ConnectionFlows } from '../../connectors/flows.js';
import type { ConfirmAnswer } from '../../connectors/connector.js';
import { storeOutgoingJob } from '../../domain/messaging.js';
import { presentConversation } from '../../presenters/conversation.js';
import { recordEvent } from '../../domain/events.js';
import type { RouteContext } from '../../http/context.js';
import { Conflict, NotFound, ProviderUnavailable, ValidationFailed, WrongProvider } from '../../errors/errors.js';
import { pathId } from '../../http/params.js';
import { presentV1Job } from '../../presenters/v1.js';
import { readInput } from '../../http/input.js';
import { validator } from '../../http/validate.js';
import type { ChannelRow } from '../../store/resources/channels.js';
import type { Presenters } from '../../presenters/presenters.js';
import type { Store } from '../../store/store.js';
import { findChannel } from '../lookup.js';

const requestCode = validator(requestCodeBody);
const confirmChatB = validator(confirmChatBPersonalBody);
const confirmSocialC = validator(confirmSocialCBody);
const enablePage = validator(enablePageBody);
const conversationBody = validator(v1ConversationBody);
const userExistsInput = validator(userExistsQuery);

type Handler = (ctx: RouteContext) => Promise<void> | void;

/**
 * The v1 connection steps and write-first (contract section 4): request_code, confirm,
 * enable_page_instagram and POST .../conversations, each for the providers the contract names;
 * any other provider is a 422 `wrong_provider`.
 */
export function flowRoutes(
  store: Store,
  flows: ConnectionFlows,
  presenters: Presenters,
): Record<'requestCode' | 'confirm' | 'enablePage' | 'conversations' | 'job' | 'userExists', Handler> {
  return {
    async requestCode(ctx: RouteContext) {
      const { channel } = findChannel(store, ctx, 'Channel');
      const input = readInput(ctx, requestCode);
      expectProvider(channel, ['chat_a', 'chat_b_personal', 'social_c'], 'request_code');
      expectUnconfirmed(channel, 'request a code');
      if (channel.provider === 'social_c') {
        if (input.challenge_variant === undefined && input.challenge_type === undefined) {
          throw new ValidationFailed([
            {
              field: 'challenge_variant',
              detail: 'challenge_variant or challenge_type=two_factor is required for social_c',
            },
            {
              field: 'challenge_type',
              detail: 'challenge_variant or challenge_type=two_factor is required for social_c',
            },
          ]);
        }
        await flows.requestCode(channel, {
          ...(input.challenge_variant === undefined ? {} : { challenge_variant: String(input.challenge_variant) }),
          ...(input.challenge_type === undefined ? {} : { challenge_type: input.challenge_type }),
        });
        ctx.body = { result: 'ok' };
        return;
      }
      const answer = await flows.requestCode(channel, {});
      if (channel.provider === 'chat_a') {
        const { sessionId, code, ttl } = answer;
        if (typeof sessionId !== 'string' || typeof code !== 'string')
          throw new ProviderUnavailable('The connector answered request_code without sessionId and code.');
        ctx.body = { sessionId, code, ttl: typeof ttl === 'number' || typeof ttl === 'string' ? String(ttl) : '' };
        return;
      }
      const { code_length, code_type, expires_in, next_type, session_id } = answer;
      if (typeof session_id !== 'number')
        throw new ProviderUnavailable('The connector answered request_code without a session_id.');
      ctx.body = { code_length, code_type, expires_in, next_type, session_id, status: 'ok' };
    },

    async confirm(ctx: RouteContext) {
      const { channel } = findChannel(store, ctx, 'Channel');
      expectProvider(channel, ['chat_b_personal', 'social_c'], 'confirm');
      if (channel.provider === 'chat_b_personal') {
        const input = readInput(ctx, confirmChatB);
        expectUnconfirmed(channel, 'confirm it');
        const answer = await flows.confirm(
          channel,
          input.confirmation_type === 'code'
            ? { type: 'code', code: String(input.code) }
            : { type: 'password', password: input.password! },
        );
        ctx.body = {
          result: 'ok',
          state: answer.state === 'enabled' ? 'enabled' : 'unconfirmed',
          ...followUps(answer),
        };
        return;
      }
      const input = readInput(ctx, confirmSocialC);
      expectUnconfirmed(channel, 'confirm it');
      const answer = await flows.confirm(
        channel,
        input.confirmation_type === 'two_factor'
          ? { type: 'two_factor', code: input.confirmation_code, variant: Number(input.confirmation_variant) }
          : { type: 'challenge', code: input.confirmation_code },
      );
      ctx.body = { result: 'ok', ...followUps(answer) };
    },

    async enablePage(ctx: RouteContext) {
      const { channel } = findChannel(store, ctx, 'Channel');
      const input = readInput(ctx, enablePage);
      expectProvider(channel, ['social_c_business', 'social_c'], 'enable_page_instagram');
      const pageId = String(input.page_id);
      const pages = await flows.listPages(channel);
      if (!pages.some((page) => page.id === pageId)) {
        throw ValidationFailed.field(
          'page_id',
          `page_id must be one of the loaded pages (${pages.map((p) => p.id).join(', ') || 'none loaded yet'})`,
        );
      }
      const state = await flows.enablePage(channel, pageId, input.sync_period);
      ctx.body = {
        status: 'ok',
        data: {
          external_id: channel.id,
          page_id: pageId,
          sync_period: input.sync_period,
          state: state === 'enabled' ? 'enabled' : channel.state,
        },
      };
    },

    conversations(ctx: RouteContext) {
      const { company, channel } = findChannel(store, ctx, 'Channel');
      expectProvider(channel, ['chat_a', 'chat_a_business'], 'Write-first conversations');
      const input = conversationFor(channel, readInput(ctx, conversationBody));
      const created = store.transaction(() => {
        const current = store.channels.find(company.id, channel.id);
        if (current === undefined) throw new Conflict(`Channel ${channel.id} was deleted meanwhile.`);
        const template = input.template === undefined ? undefined : templateFor(store, company.id, input.template);
        const now = new Date();
        const { contact } = store.contacts.findOrCreate(
          {
            companyId: company.id,
            channelId: channel.id,
            externalId: input.phone,
            externalPublicId: input.phone,
            name: input.phone,
            phone: input.phone,
          },
          now.getTime(),
        );
        const { conversation, created: isNew } = store.conversations.findOrCreate(
          company.id,
          channel.id,
          contact.id,
          now.getTime(),
        );
        if (isNew)
          recordEvent(store.outbox, company.id, 'conversation', 'create', presentConversation(conversation), now);
        const sent = storeOutgoingJob(
          store,
          conversation,
          {
            text: template?.text ?? input.message,
            sendToCrm: true,
            v1Job: true,
            ...(input.template === undefined
              ? {}
              : {
                  template: {
                    bizTemplateId: input.template.id,
                    substitutions: input.template.parameters,
                    language: input.template.language_code,
                  },
                }),
          },
          presenters,
          now,
        );
        return store.v1Jobs.insert(
          {
            companyId: company.id,
            channelId: channel.id,
            conversationId: conversation.id,
            messageId: sent.message.id,
            sendJobId: sent.jobId,
          },
          now.getTime(),
        );
      });
      ctx.status = 201;
      ctx.body = { status: 'ok', data: presentV1Job(created, channel.provider) };
    },

    async userExists(ctx: RouteContext) {
      const { channel } = findChannel(store, ctx, 'Channel');
      const { phone } = readInput(ctx, userExistsInput);
      expectProvider(channel, ['chat_a'], 'user_exists');
      if (channel.state !== 'enabled')
        throw new Conflict(`Channel ${channel.id} is ${channel.state}: only a connected channel can look a number up.`);
      ctx.body = { status: 'ok', exists: await flows.userExists(channel, phone) };
    },

    job(ctx: RouteContext) {
      const { company, channel } = findChannel(store, ctx, 'Channel');
      const id = pathId(ctx.params.jobId, 'job');
      const job = store.v1Jobs.find(company.id, channel.id, id);
      if (job === undefined) throw new NotFound(`Job ${id} of channel ${channel.id} was not found.`);
      ctx.body = { status: 'ok', data: presentV1Job(job, channel.provider) };
    },
  };
}

type ConversationInput = {
  phone: string;
  message?: string;
  template?: { id: string; language_code: string; parameters: string[] };
};

/**
 * message only through the personal channel, template only through the business one (contract
 * section 4). `text` is read as `message` (the hosted service's example sends it so); not both.
 */
function conversationFor(channel: ChannelRow, given: ConversationInput & { text?: string }): ConversationInput {
  if (given.text !== undefined && given.message !== undefined)
    throw ValidationFailed.field('text', 'text is another name for message: send one of them');
  const { text, ...input } = given;
  if (text !== undefined) input.message = text;
  const business = channel.provider === 'chat_a_business';
  if (business && input.message !== undefined)
    throw ValidationFailed.field(
      'message',
      'message is for regular (chat_a) channels: a chat_a_business channel writes first with a template',
    );
  if (!business && input.template !== undefined)
    throw ValidationFailed.field(
      'template',
      'template is for business (chat_a_business) channels: a chat_a channel writes first with a message',
    );
  if (business && input.template === undefined)
    throw ValidationFailed.field('template', 'template is required to write first through a chat_a_business channel');
  if (!business && input.message === undefined)
    throw ValidationFailed.field('message', 'message is required to write first through a chat_a channel');
  return input;
}

/** The synced template the request names, with its body rendered; a count mismatch is a 422. */
function templateFor(
  store: Store,
  companyId: number,
  template: NonNullable<ConversationInput['template']>,
): { text: string } {
  const row = store.templates.findByBizId(companyId, template.id);
  if (row === undefined)
    throw ValidationFailed.field('template/id', `template ${template.id} is not one of the company's synced templates`);
  if (template.parameters.length !== row.substitutions_count) {
    throw ValidationFailed.field(
      'template/parameters',
      `template ${template.id} takes ${row.substitutions_count} parameters, got ${template.parameters.length}`,
    );
  }
  return {
    text: row.body.replace(/\{\{(\d+)\}\}/g, (marker, n: string) => template.parameters[Number(n) - 1] ?? marker),
  };
}

function expectProvider(channel: ChannelRow, providers: readonly string[], action: string): void {
  if (!providers.includes(channel.provider)) {
    throw new WrongProvider(
      `${action} is for ${providers.join(', ')} channels; channel ${channel.id} is ${channel.provider}.`,
    );
  }
}

function expectUnconfirmed(channel: ChannelRow, what: string): void {
  if (channel.state !== 'unconfirmed')
    throw new Conflict(`Channel ${channel.id} is already ${channel.state}: there is nothing to ${what} for.`);
}

/** The Instagram-type follow-ups of confirm (contract section 4). */
function followUps(answer: ConfirmAnswer): Record<string, unknown> {
  if (answer.two_factor_requires !== undefined)
    return { data: { two_factor_requires: true, details: answer.two_factor_requires } };
  if (answer.confirmation_requires !== undefined)
    return { data: { confirmation_requires: true, details: answer.confirmation_requires } };
  return {};
}
