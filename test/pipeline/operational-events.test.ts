// Operational events in embedded mode, through the real HTTP API, the admin API and real receivers:
// endpoints disabled and enabled (by the gateway, the API, the admin API), deliveries failed for
// good, the operator webhook, the loop guards and the metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_CATALOG } from '../../schemas/events/catalog.js';
import { changeWebhookEndpoint } from '../../src/domain/operational-events.js';
import { compileSchema, schemaErrors } from '../helpers/schemas.js';
import { systemClock } from '../../src/streams/stream.js';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import {
  ApiClient,
  companyEvents,
  exhaustedScenario,
  goneEndpointScenario,
  metricValue,
  operatorEnv,
  startOperatorReceiver,
  type OperatorReceiver,
} from './operational-scenarios.js';
import { eventually } from '../helpers/wait.js';

let gw: TestGateway;
let operator: OperatorReceiver;

beforeAll(async () => {
  operator = await startOperatorReceiver();
  gw = await startTestGateway({ ...TO_RECEIVERS, ...operatorEnv(operator) }, { clock: systemClock });
});
afterAll(async () => {
  await gw?.close();
  await operator?.receiver.close();
});

const nameOf = (hook: { body: unknown }) => {
  const body = hook.body as { type: string; event: string };
  return `${body.type}.${body.event}`;
};

describe('operational events (embedded streams)', () => {
  it('an endpoint answering 410 is disabled: webhook.disabled and delivery.failed reach the endpoints that want them and the operator, never the endpoint itself', async () => {
    await goneEndpointScenario(gw, operator);
  }, 90_000);

  it('deliveries failed after their last attempt write delivery.failed to the other endpoint; their failures and the operator copies failing write none', async () => {
    await exhaustedScenario(gw, operator);
  }, 90_000);

  it('disabling and enabling through the API and the admin API write webhook.disabled and webhook.enabled with the endpoint as changed', async () => {
    const api = new ApiClient(gw);
    const company = await api.company('Toggled');
    const toggled = await api.endpoint(company, () => ({ status: 200 }));
    const watcher = await api.endpoint(company, () => ({ status: 200 }));
    const counts = async () =>
      Promise.all(
        ['disabled,api', 'enabled,api', 'disabled,admin', 'enabled,admin'].map((key) => {
          const [state, by] = key.split(',');
          return metricValue(gw, `gateway_webhook_endpoint_state_changes_total{state="${state}",by="${by}"}`);
        }),
      );
    const before = await counts();
    const base = `/api/p2/companies/${company}/webhooks/${toggled.id}`;
    try {
      expect((await api.call('PATCH', base, { active: false })).status).toBe(200);
      // A change that leaves the state as it is writes nothing.
      expect((await api.call('PUT', base, { active: false, event_types: ['auth.create'] })).status).toBe(200);
      expect((await gw.admin('POST', `/admin/companies/${company}/endpoints/${toggled.id}/enable`)).status).toBe(200);
      expect(
        (
          await gw.admin('POST', `/admin/companies/${company}/endpoints/${toggled.id}/disable`, {
            reason: 'maintenance window',
          })
        ).status,
      ).toBe(200);
      expect((await api.call('PATCH', base, { active: true, event_types: null })).status).toBe(200);

      const events = companyEvents(gw, company);
      expect(events.map((e) => [e.name, e.body.object])).toEqual([
        ['webhook.disabled', expect.objectContaining({ id: toggled.id, active: false, disabled_reason: null })],
        [
          'webhook.enabled',
          expect.objectContaining({
            id: toggled.id,
            active: true,
            disabled_reason: null,
            event_types: ['auth.create'],
          }),
        ],
        [
          'webhook.disabled',
          expect.objectContaining({ id: toggled.id, active: false, disabled_reason: 'maintenance window' }),
        ],
        [
          'webhook.enabled',
          expect.objectContaining({ id: toggled.id, active: true, disabled_reason: null, event_types: null }),
        ],
      ]);
      // The object is the endpoint as the API shows it after the change (updated_at included): both written together.
      const shown = (await api.call('GET', base)).body.webhook;
      expect(events.at(-1)!.body.object).toEqual(shown);

      await eventually('the watcher received all four', () => watcher.receiver.received.length >= 4, 30_000);
      expect(watcher.receiver.received.map((h) => h.id)).toEqual(events.map((e) => e.id));
      // The toggled endpoint hears of its enabling (it is active then), never of its disabling. The
      // first enable came while it filtered on auth.create only, so the last one alone reached it.
      await eventually(
        'the toggled endpoint received its last enable',
        () => toggled.receiver.received.some((h) => !h.id.startsWith('test_')),
        30_000,
      );
      // Enabling it through the API sent the activation's test POST (webhook-id test_...) before.
      const received = toggled.receiver.received.filter((h) => !h.id.startsWith('test_'));
      expect(received.map(nameOf)).toEqual(['webhook.enabled']);
      expect(received[0]!.id).toBe(events[3]!.id);
      expect(await counts()).toEqual(before.map((n, i) => n + [1, 1, 1, 1][i]!));
    } finally {
      await Promise.all([toggled.receiver.close(), watcher.receiver.close()]);
    }
  }, 60_000);

  it('a retry waiting when its endpoint is deleted fails with delivery.failed (endpoint_unavailable)', async () => {
    const api = new ApiClient(gw);
    const company = await api.company('Unavailable');
    // 503 with Retry-After: the next attempt waits 3 s, time to delete the endpoint meanwhile (a
    // disabled one would hold the retry until it is enabled again: test/dispatch/delivery-order.test.ts).
    const slow = await api.endpoint(company, () => ({ status: 503, headers: { 'retry-after': '3' } }));
    const watcher = await api.endpoint(company, () => ({ status: 200 }), ['delivery.failed']);
    const before = await metricValue(
      gw,
      'gateway_webhook_deliveries_failed_total{target="company",reason="endpoint_unavailable"}',
    );
    try {
      await api.authCreate(company);
      await eventually('the first attempt answered 503', () => slow.receiver.received.length === 1, 30_000);
      expect((await api.call('DELETE', `/api/p2/companies/${company}/webhooks/${slow.id}`)).status).toBe(204);
      await eventually('delivery.failed at the watcher', () => watcher.receiver.received.length === 1, 30_000);
      const [failed] = companyEvents(gw, company, 'delivery.failed');
      expect(watcher.receiver.received[0]!.body).toEqual(failed!.body);
      expect(failed!.body.object).toMatchObject({
        endpoint_id: slow.id,
        event_type: 'auth.create',
        status: 'failed',
        attempt_count: 1,
      });
      expect((failed!.body.object as { last_error: string }).last_error).toMatch(
        new RegExp(`^The endpoint ${slow.id} of delivery dlv_[0-9a-f]+ no longer exists`),
      );
      expect(slow.receiver.received).toHaveLength(1);
      await eventually(
        'counted',
        async () =>
          (await metricValue(
            gw,
            'gateway_webhook_deliveries_failed_total{target="company",reason="endpoint_unavailable"}',
          )) ===
          before + 1,
      );
    } finally {
      await Promise.all([slow.receiver.close(), watcher.receiver.close()]);
    }
  }, 60_000);

  it("replays an operator delivery from the admin API to the operator webhook, with the event's webhook-id", async () => {
    const api = new ApiClient(gw);
    const company = await api.company('Replayed');
    const endpoint = await api.endpoint(company, () => ({ status: 200 }));
    try {
      expect(
        (await api.call('PATCH', `/api/p2/companies/${company}/webhooks/${endpoint.id}`, { active: false })).status,
      ).toBe(200);
      const [event] = companyEvents(gw, company, 'webhook.disabled');
      const operatorCopies = () => operator.receiver.received.filter((h) => h.id === event!.id);
      await eventually('the operator received it', () => operatorCopies().length === 1, 30_000);
      const list = await gw.admin('GET', '/admin/deliveries?event_type=webhook.disabled');
      const delivery = list.body.deliveries.find((d: { event_id: string }) => d.event_id === event!.id);
      expect(delivery).toMatchObject({ company_id: 0, endpoint_id: 0, status: 'delivered' });
      expect((await gw.admin('POST', `/admin/deliveries/${delivery.id}/replay`)).status).toBe(202);
      await eventually('the replay arrived', () => operatorCopies().length === 2, 30_000);
      expect(operatorCopies()[1]!.verifiedBy).toEqual([0]);
      expect(operatorCopies()[1]!.body).toEqual(event!.body);
      const shown = await gw.admin('GET', `/admin/deliveries/${delivery.id}`);
      await eventually(
        'the manual attempt recorded',
        async () => (await gw.admin('GET', `/admin/deliveries/${delivery.id}`)).body.attempts.length === 2,
      );
      expect(shown.body.event).toEqual(event!.body);
    } finally {
      await endpoint.receiver.close();
    }
  }, 60_000);

  it('the portal: a disable writes webhook.disabled (by portal); a test event matches the catalog and its failure writes no delivery.failed', async () => {
    const api = new ApiClient(gw);
    const company = await api.company('Portal');
    const endpoint = await api.endpoint(company, () => ({ status: 500 }));
    const before = await metricValue(gw, 'gateway_webhook_endpoint_state_changes_total{state="disabled",by="portal"}');
    try {
      const link = await api.call('POST', `/api/p2/companies/${company}/portal_sessions`);
      expect(link.status).toBe(201);
      const entered = await fetch(`${gw.baseUrl}/portal/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: new URL(link.body.portal_session.url).hash.slice(1) }),
      });
      expect(entered.status).toBe(201);
      const cookie = /gw_portal=[^;]+/.exec(entered.headers.getSetCookie().join(';'))![0];
      const csrf = ((await entered.json()) as { session: { csrf_token: string } }).session.csrf_token;
      const portal = async (method: string, path: string, json: unknown = {}) =>
        (
          await fetch(`${gw.baseUrl}${path}`, {
            method,
            headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
            body: JSON.stringify(json),
          })
        ).status;

      expect(await portal('PATCH', `/portal/api/webhooks/${endpoint.id}`, { active: false })).toBe(200);
      const [disabled] = companyEvents(gw, company, 'webhook.disabled');
      expect(disabled!.body.object).toMatchObject({
        id: endpoint.id,
        active: false,
        disabled_reason: 'disabled in the company portal',
      });
      await eventually(
        'counted',
        async () =>
          (await metricValue(gw, 'gateway_webhook_endpoint_state_changes_total{state="disabled",by="portal"}')) ===
          before + 1,
      );

      expect(await portal('PATCH', `/portal/api/webhooks/${endpoint.id}`, { active: true })).toBe(200);
      expect(await portal('POST', `/portal/api/webhooks/${endpoint.id}/test`)).toBe(202);
      await eventually(
        'the test event tried twice',
        () => endpoint.receiver.received.filter((h) => nameOf(h) === 'webhook.test').length === 2,
        30_000,
      );
      const validate = compileSchema(EVENT_CATALOG.find((entry) => entry.name === 'webhook.test')!.schema);
      const test = endpoint.receiver.received.find((h) => nameOf(h) === 'webhook.test')!;
      expect(validate(test.body), schemaErrors(validate)).toBe(true);
      await eventually('the test delivery failed', async () =>
        (await gw.admin('GET', '/admin/deliveries?event_type=webhook.test&status=failed')).body.deliveries.some(
          (d: { event_id: string }) => d.event_id === test.id,
        ),
      );
      // A delivery.failed would be written in the transaction that recorded the failure, so it
      // would be in the store by now: a test event's failure is told no further.
      expect(companyEvents(gw, company).map((e) => e.name)).toEqual(['webhook.disabled', 'webhook.enabled']);
    } finally {
      await endpoint.receiver.close();
    }
  }, 60_000);

  it('a state change rolled back takes its event with it', async () => {
    const api = new ApiClient(gw);
    const company = await api.company('Rolled back');
    const endpoint = await api.endpoint(company, () => ({ status: 200 }));
    try {
      const row = gw.store.webhooks.find(company, endpoint.id)!;
      expect(() =>
        gw.store.transaction(() => {
          changeWebhookEndpoint(gw.store, row, { active: false }, 'api');
          throw new Error('a later write of the same transaction failed');
        }),
      ).toThrow('a later write');
      expect(gw.store.webhooks.find(company, endpoint.id)!.active).toBe(1);
      expect(companyEvents(gw, company)).toEqual([]);
    } finally {
      await endpoint.receiver.close();
    }
  });
});
