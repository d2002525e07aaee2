/**
 * The operations of /openapi.json as the fuzz suite reads them: method, path, how each
 * authenticates, the statuses it documents, and its query and body schemas. The generators of
 * refused requests work from these.
 */
import type { Schema } from './bad-values.js';

/** One operation of /openapi.json, as the fuzz suite reads it. */
export interface DocumentedOperation {
  method: string;
  /** OpenAPI path, `{param}` segments. */
  path: string;
  /** How it authenticates: an API token, the admin token, nothing, or a web session's cookie and CSRF token. */
  security: 'api' | 'admin' | 'none' | 'console' | 'portal';
  statuses: number[];
  /** The query parameters as one object schema (GET and DELETE). */
  query?: Schema;
  /** The JSON (and form) body schema (POST, PUT, PATCH). */
  body?: Schema;
}

interface OpenApiOperation {
  security: Record<string, unknown>[];
  parameters: { name: string; in: string; required: boolean; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, unknown>;
}

/** Every operation of the document, with the statuses it documents. */
export function documentedOperations(document: {
  paths: Record<string, Record<string, OpenApiOperation>>;
}): DocumentedOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => {
      const queryParams = op.parameters.filter((p) => p.in === 'query');
      const security = op.security.length === 0 ? 'none' : 'adminToken' in op.security[0]! ? 'admin' : 'api';
      return {
        method: method.toUpperCase(),
        path,
        security,
        statuses: Object.keys(op.responses).map(Number),
        ...(queryParams.length === 0
          ? {}
          : {
              query: {
                type: 'object',
                required: queryParams.filter((p) => p.required).map((p) => p.name),
                properties: Object.fromEntries(queryParams.map((p) => [p.name, p.schema])),
              },
            }),
        ...(op.requestBody?.content['application/json'] === undefined
          ? {}
          : { body: op.requestBody.content['application/json'].schema }),
      };
    }),
  );
}
