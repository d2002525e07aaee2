import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
// ajv-formats is CommonJS: its callable sits on `default` when imported from ESM.
((formats as { default?: unknown }).default as typeof formats.default)(ajv);

/** Compiles a schema from schemas/ for asserting answers and events in tests (strict, with formats). */
export function compileSchema(schema: object): ValidateFunction {
  return ajv.compile(schema);
}

/** Readable ajv errors for an assertion message. */
export function schemaErrors(validate: ValidateFunction): string {
  return ajv.errorsText(validate.errors);
}
