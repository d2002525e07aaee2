// The operational events (webhook.disabled, webhook.enabled, delivery.failed) end to end through the
// real HTTP API and real receivers: shared by the embedded and the Kafka test files.
import { expect } from 'vitest';
import { emittedEvents } from '../helpers/events.js';
import type { EventRecord } from '../../src/streams/catalog.js';
import { ADMIN_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { newSecret } from '../helpers/pipeline.js';
import { startReceiver, type Answer, type ReceivedWebhook } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** The operator webhook's receiver: its secret, and the answer it gives (changed by a test). */
export interface OperatorReceiver {
  receiver: Receiver;
  secret: string;
  answer: { status: number };
}

export async function startOperatorReceiver(): Promise<OperatorReceiver> {
  const secret = newSecret();
  const answer = { status: 200 };
  const receiver = await startReceiver(
    () => [secret],
    () => ({ status: answer.status }),
  );
  return { receiver, secret, answer };
}

/** The gateway settings of these scenarios: the operator webhook, and a short schedule (two attempts, 200 ms apart). */
export function operatorEnv(operator: OperatorReceiver): Record<string, string> {
  return {
    GATEWAY_OPERATOR_WEBHOOK_URL: operator.receiver.url,
    GATEWAY_OPERATOR_WEBHOOK_SECRET: operator.secret,
    GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0,200ms',
    GATEWAY_WEBHOOK_RETRY_JITTER: '0',
  };
}

interface Body {
  id: string;
  event: string;
  type: string;
  object: Record<string, unknown>;
}

const bodyOf = (hook: ReceivedWebhook) => hook.body as Body;
const nameOf = (hook: ReceivedWebhook) => `${bodyOf(hook).type}.${bodyOf(hook).event}`;

export class ApiClient {
  constructor(private readonly gw: TestGateway) {}

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(`${this.gw.baseUrl}${path}`, {
      method,
      headers: { 'x-private-api-token': this.gw.token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  }

  async company(name: string): Promise<number> {
    const created = await this.call('POST', '/p1/companies', { name });
    expect(created.status).toBe(201);
    return created.body.data.external_id as number;
  }

  /** A webhook endpoint created through the API, and a receiver verifying with its secret. */
  async endpoint(
    company: number,
    answer: (n: number) => Answer,
    eventTypes: string[] | null = null,
  ): Promise<{ id: number; receiver: Receiver }> {
    let secret = '';
    const receiver = await startReceiver(() => [secret], answer);
    const created = await this.call('POST', `/api/p2/companies/${company}/webhooks`, {
      url: receiver.url,
      event_types: eventTypes,
      active: true,
    });
    expect(created.status).toBe(201);
    secret = created.body.webhook.secret;
    return { id: created.body.webhook.id as number, receiver };
  }

  /** An event of the company through the API: a chat_b auth created (`auth.create`). */
  async authCreate(company: number): Promise<void> {
    expect(
      (await this.call('POST', `/api/p2/companies/${company}/auths`, { provider: 'chat_b', token: '123456:bot-token' }))
        .status,
    ).toBe(201);
  }
}

/** The company's events in the outbox, validated against the catalog and their schemas. */
export function companyEvents(gw: TestGateway, company: number, name?: string): EventRecord[] {
  return emittedEvents(gw.store).filter((e) => e.company_id === company && (name === undefined || e.name === name));
}

async function metricsText(gw: TestGateway): Promise<string> {
  return (await fetch(`${gw.baseUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
}

export async function metricValue(gw: TestGateway, series: string): Promise<number> {
  const line = (await metricsText(gw)).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

/**
 * An endpoint answering 410 is disabled: the company's endpoint that asked for the operational
 * events and the operator webhook receive `webhook.disabled` and `delivery.failed`, signed with their
 * own secrets, with the same webhook-id; the disabled endpoint never hears of its own disabling, and
 * an endpoint filtering on other events receives none.
 */
export async function goneEndpointScenario(gw: TestGateway, operator: OperatorReceiver): Promise<void> {
  const api = new ApiClient(gw);
  const company = await api.company('Gone');
  const gone = await api.endpoint(company, () => ({ status: 410 }));
  const watcher = await api.endpoint(company, () => ({ status: 200 }), [
    'webhook.disabled',
    'webhook.enabled',
    'delivery.failed',
  ]);
  const authsOnly = await api.endpoint(company, () => ({ status: 200 }), ['auth.create']);
  const operatorOf = () => operator.receiver.received.filter((h) => bodyOf(h).object.company_id === company);
  try {
    const disabledBefore = await metricValue(
      gw,
      'gateway_webhook_endpoint_state_changes_total{state="disabled",by="gateway"}',
    );
    const goneBefore = await metricValue(gw, 'gateway_webhook_deliveries_failed_total{target="company",reason="gone"}');
    await api.authCreate(company);
    await eventually(
      'webhook.disabled and delivery.failed at the watcher and the operator',
      () => watcher.receiver.received.length >= 2 && operatorOf().length >= 2,
      60_000,
    );

    const [disabled] = companyEvents(gw, company, 'webhook.disabled');
    const [failed] = companyEvents(gw, company, 'delivery.failed');
    expect(
      companyEvents(gw, company)
        .map((e) => e.name)
        .sort(),
    ).toEqual(['auth.create', 'delivery.failed', 'webhook.disabled']);
    expect(disabled!.body.object).toMatchObject({
      id: gone.id,
      company_id: company,
      active: false,
      disabled_reason: 'the endpoint answered 410 Gone',
    });
    expect(failed!.body.object).toMatchObject({
      company_id: company,
      endpoint_id: gone.id,
      event_type: 'auth.create',
      status: 'failed',
      attempt_count: 1,
      last_status_code: 410,
    });

    expect(watcher.receiver.received.map(nameOf).sort()).toEqual(['delivery.failed', 'webhook.disabled']);
    expect(operatorOf().map(nameOf).sort()).toEqual(['delivery.failed', 'webhook.disabled']);
    for (const event of [disabled!, failed!]) {
      const atWatcher = watcher.receiver.received.find((h) => h.id === event.id)!;
      const atOperator = operatorOf().find((h) => h.id === event.id)!;
      expect(atWatcher.body).toEqual(event.body);
      expect(atOperator.body).toEqual(event.body);
      expect(atWatcher.verifiedBy).toEqual([0]);
      expect(atOperator.verifiedBy).toEqual([0]);
    }
    // The gone endpoint got the one event it refused, nothing about itself; the filter kept the rest away.
    expect(gone.receiver.received.map(nameOf)).toEqual(['auth.create']);
    expect(authsOnly.receiver.received.map(nameOf)).toEqual(['auth.create']);

    // The operator's deliveries: recorded like any, under endpoint and company 0, delivered.
    await eventually(
      'operator deliveries recorded as delivered',
      async () => {
        const list = await gw.admin('GET', `/admin/deliveries?event_type=webhook.disabled`);
        return list.body.deliveries.some(
          (d: any) =>
            d.event_id === disabled!.id && d.endpoint_id === 0 && d.company_id === 0 && d.status === 'delivered',
        );
      },
      30_000,
    );
    await eventually(
      'the metrics counted the disable and the failure',
      async () =>
        (await metricValue(gw, 'gateway_webhook_endpoint_state_changes_total{state="disabled",by="gateway"}')) ===
          disabledBefore + 1 &&
        (await metricValue(gw, 'gateway_webhook_deliveries_failed_total{target="company",reason="gone"}')) ===
          goneBefore + 1,
    );
  } finally {
    await Promise.all([gone, watcher, authsOnly].map((e) => e.receiver.close()));
  }
}

/**
 * Deliveries fail for good after their last attempt, at two endpoints of a company: each endpoint
 * gets the `delivery.failed` of the other's failure (never of its own); when those fail too, no
 * further `delivery.failed` follows (the loop guard: without it the two would tell each other of
 * their failures endlessly), and neither does the operator webhook failing its copies.
 */
export async function exhaustedScenario(gw: TestGateway, operator: OperatorReceiver): Promise<void> {
  const api = new ApiClient(gw);
  const company = await api.company('Exhausted');
  const first = await api.endpoint(company, () => ({ status: 500 }));
  const second = await api.endpoint(company, () => ({ status: 500 }));
  const operatorOf = () => operator.receiver.received.filter((h) => bodyOf(h).object.company_id === company);
  const exhaustedBefore = await metricValue(
    gw,
    'gateway_webhook_deliveries_failed_total{target="company",reason="attempts_exhausted"}',
  );
  const operatorBefore = await metricValue(
    gw,
    'gateway_webhook_deliveries_failed_total{target="operator",reason="attempts_exhausted"}',
  );
  operator.answer.status = 500;
  try {
    await api.authCreate(company);
    const settled = async () => {
      const list = await gw.admin('GET', `/admin/deliveries?company_id=${company}`);
      const failedIds = companyEvents(gw, company, 'delivery.failed').map((e) => e.id);
      const operatorList = await gw.admin(
        'GET',
        `/admin/deliveries?event_type=delivery.failed&status=failed&limit=200`,
      );
      return (
        list.body.deliveries.length === 4 &&
        list.body.deliveries.every((d: any) => d.status === 'failed' && d.attempt_count === 2) &&
        failedIds.length === 2 &&
        failedIds.every((id) => operatorList.body.deliveries.some((d: any) => d.endpoint_id === 0 && d.event_id === id))
      );
    };
    await eventually('the deliveries of the company and the operator copies failed for good', settled, 60_000);
    // A delivery.failed is written in the transaction that records the failure it tells of
    // (recordAttemptEffects): once every delivery above is failed, a second-level one, had the
    // guard not held, is in the store already, and the list read below holds it.
    const failedEvents = companyEvents(gw, company, 'delivery.failed');
    expect(failedEvents).toHaveLength(2);
    const about = (endpointId: number) =>
      failedEvents.find((e) => (e.body.object as { endpoint_id: number }).endpoint_id === endpointId)!;
    for (const [endpoint, other] of [
      [first, second],
      [second, first],
    ] as const) {
      expect(about(endpoint.id).body.object).toMatchObject({
        event_type: 'auth.create',
        status: 'failed',
        attempt_count: 2,
        last_status_code: 500,
      });
      // Each event twice (the schedule's two attempts), with the same webhook-id; the other's failure, never its own.
      // The other's failure may come before this endpoint's own retry: the two go out at about the same time.
      expect(endpoint.receiver.received.map(nameOf).sort()).toEqual([
        'auth.create',
        'auth.create',
        'delivery.failed',
        'delivery.failed',
      ]);
      expect(endpoint.receiver.received.filter((h) => nameOf(h) === 'delivery.failed').map((h) => h.id)).toEqual([
        about(other.id).id,
        about(other.id).id,
      ]);
      expect(new Set(endpoint.receiver.received.filter((h) => nameOf(h) === 'auth.create').map((h) => h.id)).size).toBe(
        1,
      );
    }
    expect(
      operatorOf()
        .map((h) => h.id)
        .sort(),
    ).toEqual(failedEvents.flatMap((e) => [e.id, e.id]).sort());
    await eventually(
      "the metrics counted the company's four failures and the operator's two",
      async () =>
        (await metricValue(
          gw,
          'gateway_webhook_deliveries_failed_total{target="company",reason="attempts_exhausted"}',
        )) ===
          exhaustedBefore + 4 &&
        (await metricValue(
          gw,
          'gateway_webhook_deliveries_failed_total{target="operator",reason="attempts_exhausted"}',
        )) ===
          operatorBefore + 2,
    );
  } finally {
    operator.answer.status = 200;
    await Promise.all([first.receiver.close(), second.receiver.close()]);
  }
}
