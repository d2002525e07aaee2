// Black-box HTTP tests of an auth's state moves (contract section 4 "v2 Auths", section 6 events;
// docs/design.md section 9 for the paths) against a real gateway on a temp SQLite file: enable and
// disable by PUT and PATCH, confirm and delete, the moves each state refuses, the state machine's
// table of every action by state, and every auth event the moves write, against its schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authEvent } from '../../schemas/events/auth.js';
import { planAuthAction } from '../../src/domain/auths.js';
import type { OutboxRow } from '../../src/store/pipeline/outbox-rows.js';
import { failingFields, type TestGateway } from '../helpers/gateway.js';
import { compileSchema } from '../helpers/schemas.js';
import { newCompany } from '../helpers/seed.js';
import {
  authHelpers,
  authPath,
  authsPath,
  expectAuthAnswer,
  secret,
  startAuthsGateway,
  type AuthEvent,
  type Body,
} from './auth-fixtures.js';

let gw: TestGateway;
let close: () => Promise<void>;
const { action, authEvents, created, eventsOf, refused, storedState } = authHelpers(() => gw);

// The secrets this file sends reach no log line and no event either (auths-create.test.ts proves it of its own).
beforeAll(async () => {
  ({ gw, close } = await startAuthsGateway({ checkSecretsOnClose: true }));
});
afterAll(() => close?.());

const validateEvent = compileSchema(authEvent);

/** Every outbox row, published or not (a relay may have published some already). */
function outboxRows(): OutboxRow[] {
  return gw.gateway.store.db.prepare('SELECT * FROM outbox ORDER BY id').all() as OutboxRow[];
}

// ---------------------------------------------------------------------------------------------
// State machine

describe('enable and disable (PUT and PATCH)', () => {
  it.each(['PUT', 'PATCH'])(
    '%s: enabled → disabled → enabled, each with an update event carrying the state',
    async (method) => {
      const company = await newCompany(gw);
      const auth = await created(company, { provider: 'chat_b', token: secret() });

      const disabled = expectAuthAnswer(await action(method, company, auth.id, 'disable'));
      expect(disabled.state).toBe('disabled');
      expect(storedState(auth.id).state).toBe('disabled');
      expect((await gw.request('GET', authPath(company, auth.id))).body.auth.state).toBe('disabled');

      const enabled = expectAuthAnswer(await action(method, company, auth.id, 'enable', { code: '123' }));
      expect(enabled.state).toBe('enabled');
      expect(Date.parse(enabled.updated_at)).toBeGreaterThanOrEqual(Date.parse(disabled.updated_at));

      const events = eventsOf(auth.id);
      expect(events.map((e) => [e.event, e.object.state])).toEqual([
        ['create', 'enabled'],
        ['update', 'disabled'],
        ['update', 'enabled'],
      ]);
      expect(events[1]!.object).toEqual(disabled);
      expect(events[2]!.object).toEqual(enabled);
      // A disabled auth still holds its provider's slot.
    },
  );

  it('409 for enable on an enabled auth and disable on a disabled one, changing nothing', async () => {
    const company = await newCompany(gw);
    const auth = await created(company, { provider: 'market_a', login: 'l', password: 'p' });
    expect(
      (await refused(() => action('PUT', company, auth.id, 'enable'), 409, 'conflict')).body.errors[0].detail,
    ).toMatch(/already enabled/);
    await action('PATCH', company, auth.id, 'disable');
    expect(
      (await refused(() => action('PATCH', company, auth.id, 'disable'), 409, 'conflict')).body.errors[0].detail,
    ).toMatch(/already disabled/);
  });

  it('409 for disable on an unconfirmed auth (nothing is connected yet)', async () => {
    const company = await newCompany(gw);
    const auth = await created(company, { provider: 'chat_d' });
    const res = await refused(() => action('PUT', company, auth.id, 'disable'), 409, 'conflict');
    expect(res.body.errors[0].detail).toMatch(/not connected yet/);
  });

  it.each<[string, Body]>([
    ['chat_d (QR)', { provider: 'chat_d' }],
    ['chat_a (QR)', { provider: 'chat_a' }],
    ['chat_a (pairing code)', { provider: 'chat_a', phone: '79161234567' }],
    ['chat_b_personal (QR)', { provider: 'chat_b_personal', via_qr_code: true }],
  ])('409 for enable on an unconfirmed %s auth: the phone confirms it, not a code', async (_name, body) => {
    const company = await newCompany(gw);
    const auth = await created(company, body);
    await refused(() => action('PUT', company, auth.id, 'enable', { code: '12345' }), 409, 'conflict');
    expect(storedState(auth.id).state).toBe('unconfirmed');
  });

  it.each<[string, Body]>([
    ['chat_b_personal (code)', { provider: 'chat_b_personal', phone: '79161234567' }],
    ['social_c (code)', { provider: 'social_c', login: 'l', password: 'p' }],
  ])(
    'an unconfirmed %s auth: enable needs code (422), and with it answers 503 while no connector is configured',
    async (_name, body) => {
      const company = await newCompany(gw);
      const auth = await created(company, body);
      const missing = await refused(() => action('PATCH', company, auth.id, 'enable'), 422, 'validation_failed');
      expect(failingFields(missing)).toEqual(['code']);
      for (const code of [true, { x: 1 }, '', 'has spaces', -1, 1.5]) {
        expect(
          failingFields(
            await refused(() => action('PATCH', company, auth.id, 'enable', { code }), 422, 'validation_failed'),
          ),
        ).toEqual(['code']);
      }
      for (const code of ['12345', 12345]) {
        const res = await refused(
          () => action('PUT', company, auth.id, 'enable', { code }),
          503,
          'service_unavailable',
        );
        expect(res.body.errors[0].detail).toMatch(/GATEWAY_CONNECTOR_URL/);
      }
      expect(storedState(auth.id).state).toBe('unconfirmed');
    },
  );

  it('reads a code sent as form text', async () => {
    const company = await newCompany(gw);
    const auth = await created(company, { provider: 'chat_b_personal', phone: '79161234567' });
    await refused(
      () => gw.request('PUT', `${authPath(company, auth.id)}/enable`, { form: 'code=54321' }),
      503,
      'service_unavailable',
    );
  });

  it('422 for a company_id that is not the path’s', async () => {
    const company = await newCompany(gw);
    const auth = await created(company, { provider: 'chat_b', token: 't' });
    expect(
      failingFields(
        await refused(
          () => action('PUT', company, auth.id, 'disable', { company_id: company + 1000 }),
          422,
          'validation_failed',
        ),
      ),
    ).toEqual(['company_id']);
    expectAuthAnswer(await action('PUT', company, auth.id, 'disable', { company_id: company }));
  });
});

describe('POST .../auths/:id/confirm', () => {
  it.each<[string, Body]>([
    ['chat_d', { provider: 'chat_d' }],
    ['chat_a', { provider: 'chat_a' }],
    ['chat_b_personal (code)', { provider: 'chat_b_personal', phone: '79161234567' }],
  ])('an unconfirmed %s auth answers 503 while no connector is configured, changing nothing', async (_name, body) => {
    const company = await newCompany(gw);
    const auth = await created(company, body);
    const res = await refused(() => action('POST', company, auth.id, 'confirm'), 503, 'service_unavailable');
    expect(res.body.errors[0].detail).toMatch(/GATEWAY_CONNECTOR_URL/);
  });

  it('409 for an enabled or disabled auth', async () => {
    const company = await newCompany(gw);
    const auth = await created(company, { provider: 'chat_c', token: 't' });
    expect(
      (await refused(() => action('POST', company, auth.id, 'confirm'), 409, 'conflict')).body.errors[0].detail,
    ).toMatch(/already confirmed/);
    await action('PUT', company, auth.id, 'disable');
    expect(
      (await refused(() => action('POST', company, auth.id, 'confirm'), 409, 'conflict')).body.errors[0].detail,
    ).toMatch(/disabled/);
  });
});

describe('the state machine, action by state', () => {
  const auth = (provider: string, state: 'unconfirmed' | 'enabled' | 'disabled', settings: Body = {}) => ({
    id: 1,
    provider,
    state,
    settings,
  });

  it.each<[string, ReturnType<typeof auth>, 'confirm' | 'enable' | 'disable', string | undefined, string]>([
    ['enable disabled', auth('chat_b', 'disabled'), 'enable', undefined, 'move:enabled'],
    ['enable disabled session auth', auth('chat_d', 'disabled'), 'enable', undefined, 'move:enabled'],
    ['disable enabled', auth('chat_b', 'enabled'), 'disable', undefined, 'move:disabled'],
    ['enable enabled', auth('chat_b', 'enabled'), 'enable', undefined, 'refuse'],
    ['disable disabled', auth('chat_b', 'disabled'), 'disable', undefined, 'refuse'],
    ['disable unconfirmed', auth('chat_d', 'unconfirmed'), 'disable', undefined, 'refuse'],
    ['confirm enabled', auth('chat_b', 'enabled'), 'confirm', undefined, 'refuse'],
    ['confirm disabled', auth('chat_d', 'disabled'), 'confirm', undefined, 'refuse'],
    ['confirm unconfirmed', auth('chat_d', 'unconfirmed'), 'confirm', undefined, 'needs_connector'],
    ['enable unconfirmed qr', auth('chat_d', 'unconfirmed'), 'enable', '1', 'refuse'],
    ['enable unconfirmed pairing code', auth('chat_a', 'unconfirmed', { phone: '7' }), 'enable', '1', 'refuse'],
    [
      'enable unconfirmed code without code',
      auth('chat_b_personal', 'unconfirmed', { phone: '7' }),
      'enable',
      undefined,
      'needs_code',
    ],
    ['enable unconfirmed code with code', auth('social_c', 'unconfirmed'), 'enable', '1', 'needs_connector'],
  ])('%s', (_name, current, name, code, expected) => {
    const plan = planAuthAction(current, name, code);
    expect(plan.kind === 'move' ? `move:${plan.to}` : plan.kind).toBe(expected);
  });
});

// ---------------------------------------------------------------------------------------------
// Delete

describe('DELETE /api/p2/companies/:companyId/auths/:id', () => {
  it.each<[string, Body, string | undefined]>([
    ['an enabled auth', { provider: 'chat_b', token: 't' }, undefined],
    ['an unconfirmed auth', { provider: 'chat_d' }, undefined],
    ['a disabled auth', { provider: 'chat_c', token: 't' }, 'disable'],
  ])('deletes %s: {auth} disabled, a delete event, then 404 everywhere', async (_name, body, first) => {
    const company = await newCompany(gw);
    const auth = await created(company, body);
    if (first !== undefined) expectAuthAnswer(await action('PUT', company, auth.id, first));

    const res = await gw.request('DELETE', authPath(company, auth.id));
    const removed = expectAuthAnswer(res);
    expect(removed).toMatchObject({ id: auth.id, state: 'disabled' });
    expect(storedState(auth.id).deleted_at).not.toBeNull();
    const events = eventsOf(auth.id);
    expect(events.at(-1)).toMatchObject({ event: 'delete', object: removed });

    for (const [method, suffix] of [
      ['GET', ''],
      ['DELETE', ''],
      ['POST', '/confirm'],
      ['PUT', '/enable'],
      ['PATCH', '/enable'],
      ['PUT', '/disable'],
      ['PATCH', '/disable'],
    ] as const) {
      await refused(
        () => gw.request(method, `${authPath(company, auth.id)}${suffix}`, { json: { code: '1' } }),
        404,
        'not_found',
      );
    }
    expect((await gw.request('GET', authsPath(company))).body.auths).toEqual([]);
    expect(eventsOf(auth.id)).toHaveLength(events.length);
  });
});

// ---------------------------------------------------------------------------------------------
// Events

describe('auth events', () => {
  it('every auth event written by this file validates against schemas/events/auth.ts', () => {
    const records = outboxRows()
      .map((row) => ({
        row,
        record: JSON.parse(row.payload) as { id: string; name: string; company_id: number; body: AuthEvent },
      }))
      .filter(({ record }) => record.body.type === 'auth');
    // Not a sweep of next to nothing: this file's tests write some thirty auth events.
    expect(records.length).toBeGreaterThan(25);
    const kinds = new Set<string>();
    for (const { row, record } of records) {
      expect(
        validateEvent(record.body),
        `${JSON.stringify(record.body)}: ${JSON.stringify(validateEvent.errors)}`,
      ).toBe(true);
      expect(record.name).toBe(`auth.${record.body.event}`);
      expect(record.id).toBe(record.body.id);
      expect(row.message_id).toBe(record.body.id);
      expect(row.stream).toBe('gateway.events');
      expect(row.key).toBe(String(record.company_id));
      expect(record.company_id).toBe(record.body.object.company_id);
      kinds.add(`${record.body.event}:${record.body.object.state}`);
    }
    expect([...kinds].sort()).toEqual([
      'create:enabled',
      'create:unconfirmed',
      'delete:disabled',
      'update:disabled',
      'update:enabled',
    ]);
    expect(new Set(records.map(({ record }) => record.body.id)).size).toBe(records.length);
  });

  it('the schema refuses an object with a credential or an unknown state', () => {
    const [sample] = authEvents();
    expect(validateEvent({ ...sample, object: { ...sample!.object, credentials: { token: 'x' } } })).toBe(false);
    expect(validateEvent({ ...sample, object: { ...sample!.object, settings: { token: 'x' } } })).toBe(false);
    expect(validateEvent({ ...sample, object: { ...sample!.object, state: 'deleted' } })).toBe(false);
    expect(validateEvent({ ...sample, type: 'channel' })).toBe(false);
  });
});
