import { accountOf, type AppState } from '../../http/context.js';
import { NotFound } from '../../http/errors.js';
import type { CompanyRow } from '../../store/companies.js';
import type { ConversationRow } from '../../store/conversations.js';
import type { Store } from '../../store/store.js';
import { pathId } from '../params.js';

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
