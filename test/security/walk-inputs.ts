// The minimal valid input of an operation, built from its own schema in /openapi.json: its required
// fields, with sample values where a pattern or a format asks for more than the type.
import { Ajv } from 'ajv';

/** Values of fields whose schema alone does not give a valid one (patterns, formats). */
const SAMPLES: Record<string, unknown> = {
  name: 'walk',
  message_retention_days: 30,
  phone: '79250009999',
  text: 'walk',
  message: 'walk',
  url: 'http://127.0.0.1:9/walk',
  file_url: 'http://127.0.0.1:9/walk.png',
  token: 'walk-token',
  login: 'walk-login',
  password: 'walk-password',
  state: 'walk-unknown-state',
  code: 'walk-code',
  'hub.mode': 'subscribe',
  'hub.challenge': 'walk-challenge',
  // Both accounts have a connected chat_a channel: writing first through it reaches every check.
  provider: 'chat_a',
};

/** Fields an optional id field needs beside it to be taken at all (a template is for chat_a_business only). */
export const COMPANIONS: Record<string, Record<string, unknown>> = {
  biz_template_id: { provider: 'chat_a_business' },
};

/** Fields sent although optional: without them the route refuses the input before it looks at any id. */
const HELPFUL = ['text', 'phone'];

const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });

/** A minimal value of a schema: its required fields (and HELPFUL ones), each from SAMPLES or its type. */
function sample(schema: any, name: string): unknown {
  if (schema.const !== undefined) return schema.const;
  if (SAMPLES[name] !== undefined && schema.type !== 'object') return SAMPLES[name];
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const variants = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(variants)) {
    for (const variant of variants) {
      const value = sample(variant, name);
      if (ajv.validate(variant, value)) return value;
    }
    return sample(variants[0], name);
  }
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, object>;
      const fields = [...(schema.required ?? []), ...HELPFUL.filter((f) => f in properties)] as string[];
      const value = () =>
        Object.fromEntries([...new Set(fields)].map((field) => [field, sample(properties[field] ?? {}, field)]));
      // Fields required by a condition the minimal value meets (a webhook endpoint's url, its type absent).
      const base = value();
      for (const part of (schema.allOf ?? []) as any[])
        if (part.if !== undefined && ajv.validate(part.if, base))
          fields.push(...((part.then?.required ?? []) as string[]));
      return value();
    }
    case 'array':
      return [sample(schema.items ?? {}, name)];
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return false;
    default:
      return 'walk';
  }
}

export function isRequired(schema: any, name: string): boolean {
  const variants: any[] = schema.oneOf ?? schema.anyOf ?? [schema];
  return variants.some((v) => (v.required ?? []).includes(name));
}

/**
 * The document's oneOf of variants (channel bodies) overlap: the route picks the variant by the
 * channel's provider, so a body is valid when one variant takes it.
 */
function lenient(schema: any): object {
  if (!Array.isArray(schema.oneOf)) return schema as object;
  const { oneOf, ...rest } = schema;
  return { ...rest, anyOf: oneOf };
}

/** The minimal valid input of an object schema (or the first variant that takes it). */
export function minimalInput(schema: object): Record<string, unknown> {
  return sample(schema, '') as Record<string, unknown>;
}

/** Null when the schema takes `input`, else ajv's words for what is wrong. */
export function validInput(schema: object, input: unknown): string | null {
  return ajv.validate(lenient(schema), input) ? null : ajv.errorsText();
}
