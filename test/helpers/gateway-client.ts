import http from 'node:http';

/** The admin token of the tests' gateways (GATEWAY_ADMIN_TOKEN: the admin API is off without one). */
export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

export interface RequestOptions {
  token?: string | null;
  /** A plain object is sent as JSON; a string or URLSearchParams as given. */
  json?: unknown;
  form?: string | URLSearchParams;
  body?: string;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;

  body: any;
}

/** What a test calls a gateway with, whatever serves its base URL (one daemon or a cluster's front). */
export interface GatewayClient {
  /** fetch against the gateway with the given API token in the X-Private-Api-Token header (null: none). */
  request(method: string, pathAndQuery: string, options?: RequestOptions): Promise<TestResponse>;
  /** fetch against the admin API with a bearer token, ADMIN_TOKEN unless given (null: none). */
  admin(method: string, path: string, body?: unknown, token?: string | null): Promise<{ status: number; body: any }>;
}

/** The client of the gateway at `baseUrl`, sending `token` unless a call names another. */
export function gatewayClient(baseUrl: string, token: string): GatewayClient {
  return {
    async request(method, pathAndQuery, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const sendToken = options.token === undefined ? token : options.token;
      if (sendToken !== null) headers['x-private-api-token'] = sendToken;
      let body: string | undefined = options.body;
      if (options.json !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = typeof options.json === 'string' ? options.json : JSON.stringify(options.json);
      } else if (options.form !== undefined) {
        headers['content-type'] ??= 'application/x-www-form-urlencoded';
        body = String(options.form);
      }
      return send(`${baseUrl}${pathAndQuery}`, method, headers, body);
    },
    async admin(method, urlPath, body, adminToken = ADMIN_TOKEN) {
      const headers: Record<string, string> = {};
      if (adminToken !== null) headers.authorization = `Bearer ${adminToken}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${baseUrl}${urlPath}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const textBody = await response.text();
      return { status: response.status, body: textBody === '' ? undefined : JSON.parse(textBody) };
    },
  };
}

/** node:http rather than fetch: fetch refuses a body on GET, which the contract's samples send. */
function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<TestResponse> {
  if (body !== undefined) headers['content-length'] ??= String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, body: parsed });
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}
