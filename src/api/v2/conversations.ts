import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { companyQuery, conversationListQuery, conversationUpdateBody } from '../../../schemas/v2/conversations.js';
import { changeConversation } from '../../domain/messaging.js';
import { markConversationRead } from '../../domain/read-state.js';
import type { AppState } from '../../http/context.js';
import { readInput } from '../../http/input.js';
import { validator } from '../../http/validate.js';
import type { Store } from '../../store/store.js';
import { requireCompany, requireConversation } from '../lookup.js';
import { toMeta, toWindow } from '../../lib/paging.js';
import { presentConversation } from '../../presenters/conversation.js';

const listQuery = validator(conversationListQuery);
const showQuery = validator(companyQuery);
const updateBody = validator(conversationUpdateBody);
const readBody = validator(companyQuery);

/** v2 conversations: list, show and mark read (beyond the contract), and the contract's PUT. */
export function conversationRoutes(router: Router<AppState>, store: Store, auth: Middleware<AppState>): void {
  router.get('/api/p2/conversations', auth, (ctx) => {
    const input = readInput(ctx, listQuery);
    const company = requireCompany(store, ctx, input.company_id);
    const { rows, total } = store.conversations.list(company.id, input.operational_state, toWindow(input));
    ctx.body = { conversations: rows.map(presentConversation), meta: toMeta(input.page, input.per_page, total) };
  });

  router.get('/api/p2/conversations/:id', auth, (ctx) => {
    const input = readInput(ctx, showQuery);
    const conversation = requireConversation(store, requireCompany(store, ctx, input.company_id), ctx.params.id);
    ctx.body = { conversation: presentConversation(conversation) };
  });

  router.put('/api/p2/conversations/:id', auth, (ctx) => {
    const input = readInput(ctx, updateBody);
    const company = requireCompany(store, ctx, input.company_id);
    const updated = store.transaction(() => {
      const conversation = requireConversation(store, company, ctx.params.id);
      return changeConversation(store, conversation, {
        operational_state: input.operational_state,
        replied_state: input.replied_state,
        assignee_id: input.assignee_id,
      });
    });
    ctx.body = { conversation: presentConversation(updated) };
  });

  // Beyond the contract: marks the conversation read (unread count 0) and sends a read receipt where the provider takes one.
  router.post('/api/p2/conversations/:id/read', auth, (ctx) => {
    const input = readInput(ctx, readBody);
    const company = requireCompany(store, ctx, input.company_id);
    const updated = store.transaction(() =>
      markConversationRead(store, requireConversation(store, company, ctx.params.id)),
    );
    ctx.body = { conversation: presentConversation(updated) };
  });
}
