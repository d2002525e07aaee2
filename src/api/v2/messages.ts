import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { messageDeleteBody, messageListQuery, messageSendBody, writeFirstBody } from '../../../schemas/v2/messages.js';
import { deleteMessages } from '../../domain/message-deletion.js';
import { companyQuery } from '../../../schemas/v2/conversations.js';
import { storeOutgoing } from '../../domain/messaging.js';
import { writeFirst } from '../../domain/write-first.js';
import type { AppState } from '../../http/context.js';
import { NotFound, ValidationFailed } from '../../errors/errors.js';
import { readInput } from '../../http/input.js';
import { validator } from '../../http/validate.js';
import type { AttachmentRow } from '../../store/resources/attachments.js';
import type { Store } from '../../store/store.js';
import { pathId } from '../../http/params.js';
import { requireCompany, requireConversation } from '../lookup.js';
import { toMeta, toWindow } from '../../lib/paging.js';
import type { Presenters } from '../../presenters/presenters.js';

const listQuery = validator(messageListQuery);
const showQuery = validator(companyQuery);
const sendBody = validator(messageSendBody);
const writeFirstInput = validator(writeFirstBody);
const deleteBody = validator(messageDeleteBody);

/** v2 messages: read a conversation's history, send into it, delete from it, write first (contract section 4). */
export function messageRoutes(
  router: Router<AppState>,
  store: Store,
  auth: Middleware<AppState>,
  presenters: Presenters,
): void {
  router.get('/api/p2/conversations/:id/messages', auth, (ctx) => {
    const input = readInput(ctx, listQuery);
    const conversation = requireConversation(store, requireCompany(store, ctx, input.company_id), ctx.params.id);
    const { rows, total } = store.messages.list(conversation.id, toWindow(input));
    const attachments = new Map<number | null, AttachmentRow[]>();
    for (const attachment of store.attachments.forMessages(rows.map((r) => r.id))) {
      attachments.set(attachment.message_id, [...(attachments.get(attachment.message_id) ?? []), attachment]);
    }
    ctx.body = {
      messages: rows.map((row) => presenters.message(row, attachments.get(row.id) ?? [])),
      meta: toMeta(input.page, input.per_page, total),
    };
  });

  router.get('/api/p2/conversations/:id/messages/:messageId', auth, (ctx) => {
    const input = readInput(ctx, showQuery);
    const conversation = requireConversation(store, requireCompany(store, ctx, input.company_id), ctx.params.id);
    const id = pathId(ctx.params.messageId, 'Message');
    const message = store.messages.find(conversation.id, id);
    if (message === undefined) throw new NotFound(`Message ${id} was not found.`);
    ctx.body = { message: presenters.message(message, store.attachments.forMessages([message.id])) };
  });

  router.post('/api/p2/conversations/:id/messages', auth, (ctx) => {
    const input = readInput(ctx, sendBody);
    if ((input.text ?? '') === '' && input.attachment_ids === undefined) {
      throw ValidationFailed.field('text', 'text or attachment_ids is required');
    }
    const company = requireCompany(store, ctx, input.company_id);
    const message = store.transaction(() =>
      storeOutgoing(
        store,
        requireConversation(store, company, ctx.params.id),
        {
          text: input.text,
          attachmentId: input.attachment_ids?.[0],
          repliedToId: input.replied_to_id,
          sendToCrm: input.send_to_crm,
        },
        presenters,
      ),
    );
    ctx.status = 201;
    ctx.body = { message };
  });

  router.delete('/api/p2/conversations/:id/messages', auth, (ctx) => {
    const input = readInput(ctx, deleteBody);
    const company = requireCompany(store, ctx, input.company_id);
    const messages = store.transaction(() =>
      deleteMessages(store, requireConversation(store, company, ctx.params.id), input.message_ids, presenters),
    );
    ctx.body = { messages };
  });

  router.post('/api/p2/messages', auth, (ctx) => {
    const input = readInput(ctx, writeFirstInput);
    const company = requireCompany(store, ctx, input.company_id);
    const message = store.transaction(() => writeFirst(store, company.id, input, presenters));
    ctx.status = 201;
    ctx.body = { message };
  });
}
