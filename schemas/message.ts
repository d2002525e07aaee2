/**
 * Attaches the sentence a validation error uses for this schema (the `x-message` keyword, read by
 * src/http/validate.ts). The result is typed as the schema itself so types still derive from it.
 */
export function withMessage<const S extends object>(schema: S, message: string): S {
  return { ...schema, 'x-message': message };
}
