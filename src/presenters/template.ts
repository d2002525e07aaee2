import type { FromSchema } from 'json-schema-to-ts';
import type { templateObject } from '../../schemas/objects/template.js';
import { toIso } from '../lib/time.js';
import type { TemplateRow } from '../store/resources/templates.js';

/** The contract's Business message template (v2), as schemas/objects/template.ts describes it. */
export type TemplateObject = FromSchema<typeof templateObject>;

/** The contract's Business message template (v2). */
export function presentTemplate(row: TemplateRow): TemplateObject {
  return {
    id: row.id,
    name: row.name,
    body: row.body,
    biz_template_id: row.biz_template_id,
    substitutions_count: row.substitutions_count,
    header_content_type: row.header_content_type,
    header: row.header,
    namespace: row.namespace,
    company_id: row.company_id,
    created_at: toIso(row.created_at),
    position: row.position,
  };
}
