import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { companyQuery } from '../../../schemas/v2/conversations.js';
import { messageEditBody, reactionAddBody } from '../../../schemas/v2/message-actions.js';
import { requestMessageAction, type MessageAction } from '../../domain/message-actions.js';
import type { AppState, RouteContext } from '../../http/context.js';
import { readInput } from '../../http/input.js';
import { pathId } from '../../http/params.js';
import { validator } from '../../http/validate.js';
import type { Presenters } from '../../presenters/presenters.js';
import type { Store } from '../../store/store.js';
import { requireCompany, requireConversation } from '../lookup.js';

const reactionBody = validator(reactionAddBody);
const reactionRemoveQuery = validator(companyQuery);
const editBody = validator(messageEditBody);

/**
 * v2 message actions at the provider (docs/api.md, "Reactions, edits and read state"): add or remove
 * the company's reaction, edit a sent message's text. Each answers 202 with the message as it is:
 * the provider's answer comes back as `message.update`.
 */
export function messageActionRoutes(
  router: Router<AppState>,
  store: Store,
  auth: Middleware<AppState>,
  presenters: Presenters,
): void {
  const act = (ctx: RouteContext, companyId: number, action: Exclude<MessageAction, { action: 'read' }>): void => {
    const company = requireCompany(store, ctx, companyId);
    const message = store.transaction(() =>
      requestMessageAction(
        store,
        requireConversation(store, company, ctx.params.id),
        pathId(ctx.params.messageId, 'Message'),
        action,
        presenters,
      ),
    );
    ctx.status = 202;
    ctx.body = { message };
  };

  router.post('/api/p2/conversations/:id/messages/:messageId/reactions', auth, (ctx) => {
    const input = readInput(ctx, reactionBody);
    act(ctx, input.company_id, { action: 'react', emoji: input.emoji });
  });

  router.delete('/api/p2/conversations/:id/messages/:messageId/reactions', auth, (ctx) => {
    const input = readInput(ctx, reactionRemoveQuery);
    act(ctx, input.company_id, { action: 'unreact' });
  });

  router.patch('/api/p2/conversations/:id/messages/:messageId', auth, (ctx) => {
    const input = readInput(ctx, editBody);
    act(ctx, input.company_id, { action: 'edit', text: input.text });
  });
}
