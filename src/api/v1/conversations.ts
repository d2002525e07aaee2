import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { conversationAssignBody, conversationNoteBody } from '../../../schemas/v1/conversations.js';
import { changeConversation } from '../../domain/messaging.js';
import type { AppState } from '../../http/context.js';
import { readInput } from '../../http/input.js';
import { validator } from '../../http/validate.js';
import type { Store } from '../../store/store.js';
import { findCompany, requireConversation } from '../lookup.js';

const noteBody = validator(conversationNoteBody);
const assignBody = validator(conversationAssignBody);

/**
 * v1 conversation note and assignee (the hosted service's v1 conversations page). Each change and
 * its `conversation.update` event commit in one transaction; an unchanged value writes no event.
 */
export function v1ConversationRoutes(router: Router<AppState>, store: Store, auth: Middleware<AppState>): void {
  const base = '/p1/companies/:companyId/conversations/:id';

  router.put(`${base}/note`, auth, (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const { note } = readInput(ctx, noteBody);
    store.transaction(() => {
      const conversation = requireConversation(store, company, ctx.params.id);
      // An empty note removes the note.
      changeConversation(store, conversation, { note: note === '' ? null : note });
    });
    ctx.body = { status: 'updated' };
  });

  router.put(`${base}/assign`, auth, (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const input = readInput(ctx, assignBody);
    const updated = store.transaction(() => {
      const conversation = requireConversation(store, company, ctx.params.id);
      // The page makes assignee_id optional: without one, the conversation is unassigned.
      return changeConversation(store, conversation, { assignee_id: input.assignee_id ?? null });
    });
    ctx.body = { status: 'ok', data: { conversation: { external_id: updated.id } } };
  });
}
