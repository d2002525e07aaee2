import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { contactEraseBody } from '../../../schemas/v2/contacts.js';
import { eraseContact } from '../../domain/contact-erasure.js';
import type { AppState } from '../../http/context.js';
import { readInput } from '../../http/input.js';
import { pathId } from '../../http/params.js';
import { validator } from '../../http/validate.js';
import type { Store } from '../../store/store.js';
import { removeAttachmentFiles } from '../../workers/attachment-files.js';
import { findCompany } from '../lookup.js';
import { matchPathCompany } from './auths.js';

const eraseBody = validator(contactEraseBody);

/**
 * Erasure of one contact (docs/api.md, "Data lifecycle"): its conversations, messages and files go,
 * and its data is scrubbed from every kept payload, in one transaction with `contact.delete`; the
 * files' bytes are removed once it committed.
 */
export function contactRoutes(
  router: Router<AppState>,
  store: Store,
  auth: Middleware<AppState>,
  folder: string,
): void {
  router.delete('/api/p2/companies/:companyId/contacts/:id', auth, async (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const contactId = pathId(ctx.params.id, 'Contact');
    matchPathCompany(company, readInput(ctx, eraseBody).company_id);
    const erased = store.transaction(() => eraseContact(store, company.id, contactId));
    await removeAttachmentFiles(folder, erased.storageKeys);
    ctx.body = { contact: erased.contact };
  });
}
