import { accountOf, type AppState, type RouteContext } from '../http/context.js';
import { NotFound } from '../errors/errors.js';
import type { CompanyRow } from '../store/resources/companies.js';
import type { ChannelRow } from '../store/resources/channels.js';
import type { ConversationRow } from '../store/resources/conversations.js';
import type { Store } from '../store/store.js';
import { pathId } from '../http/params.js';

/** The account's company named by the path parameter `param` (v1, and v2 routes under a company). */
export function findCompany(store: Store, ctx: RouteContext, param: string): CompanyRow {
  return requireCompany(store, ctx, pathId(ctx.params[param], 'Company'));
}

/** The account's company named by a v2 request's company_id; another account's answers 404 like a missing one. */
export function requireCompany(store: Store, ctx: { state: AppState }, companyId: number): CompanyRow {
  const company = store.companies.find(accountOf(ctx).id, companyId);
  if (company === undefined) throw new NotFound(`Company ${companyId} was not found.`);
  return company;
}

/** The company's conversation named by the path; a conversation of another company answers 404. */
export function requireConversation(store: Store, company: CompanyRow, idParam: string | undefined): ConversationRow {
  const id = pathId(idParam, 'Conversation');
  const conversation = store.conversations.find(company.id, id);
  if (conversation === undefined) throw new NotFound(`Conversation ${id} was not found.`);
  return conversation;
}

/** The live channel (v1) or auth (v2) named by `:id` in the company named by `:companyId`, else 404. */
export function findChannel(
  store: Store,
  ctx: RouteContext,
  noun: 'Channel' | 'Auth',
): { company: CompanyRow; channel: ChannelRow } {
  const company = findCompany(store, ctx, 'companyId');
  const id = pathId(ctx.params.id, noun);
  const channel = store.channels.find(company.id, id);
  if (channel === undefined) throw new NotFound(`${noun} ${id} was not found.`);
  return { company, channel };
}
