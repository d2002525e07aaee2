// What the test/api/companies-*.test.ts files share (contract section 2 "Company (v1)", section 4 "v1
// Companies"): the gateway a file starts, the company as the list answers it, and the helpers that create
// companies and read them back through the API alone, so every file stays black-box and runs against the
// cluster too.
import { expect } from 'vitest';
import { startTestGateway, type TestGateway, type TestResponse } from '../helpers/gateway.js';

export interface Company {
  external_id: number;
  name: string;
  phone: string | null;
  description: string | null;
  webhook_url: string | null;
  hidden: boolean;
}

/** What a test file's beforeAll starts, and `close`, its afterAll. */
export interface CompaniesGateway {
  gw: TestGateway;
  close: () => Promise<void>;
}

/** A file's beforeAll: a gateway on a temp SQLite file, or a cluster (vitest.cluster.config.ts). */
export async function startCompaniesGateway(): Promise<CompaniesGateway> {
  const gw = await startTestGateway();
  return { gw, close: () => gw.close() };
}

/**
 * The helpers that call a gateway: `gateway` answers the one the test file's beforeAll started, so a
 * file takes them once, at its top.
 */
export function companyHelpers(gateway: () => TestGateway) {
  async function create(body: Record<string, unknown>, token?: string): Promise<number> {
    const res = await gateway().request('POST', '/p1/companies', { json: body, token });
    expect(res.status, res.text).toBe(201);
    return res.body.data.external_id as number;
  }

  async function list(query = '', token?: string): Promise<TestResponse> {
    return gateway().request('GET', `/p1/companies${query}`, { token });
  }

  /** Every company of the token's account, read through the API. */
  async function allCompanies(token?: string): Promise<Company[]> {
    const companies: Company[] = [];
    let from = '';
    for (let i = 0; i < 1000; i++) {
      const res = await list(`?per=100&from=${encodeURIComponent(from)}`, token);
      expect(res.status, res.text).toBe(200);
      companies.push(...res.body.data.companies);
      from = res.body.data.next_page;
      if (from === '') return companies;
    }
    throw new Error('list never ended');
  }

  async function getCompany(id: number, token?: string): Promise<Company | undefined> {
    return (await allCompanies(token)).find((c) => c.external_id === id);
  }

  /**
   * Runs a request that must be rejected and checks that nothing was stored: every company of the
   * bootstrap account, the one whose token a request sends unless told otherwise, is as it was.
   */
  async function rejected(send: () => Promise<TestResponse>): Promise<TestResponse> {
    const before = await allCompanies();
    const res = await send();
    expect(await allCompanies()).toEqual(before);
    return res;
  }

  return { create, list, allCompanies, getCompany, rejected };
}
