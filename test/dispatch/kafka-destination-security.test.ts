// Kafka destinations with SASL and TLS against a real broker (test/helpers/secure-kafka.ts): the
// right credentials and the right CA deliver; a wrong password or a CA that did not sign the broker's
// certificate fail every attempt with the broker's reason in the attempt log, and the password never
// reaches the attempt log, the daemon's log or any API answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { kafkaSink, type BrokerSink } from '../helpers/broker-sinks.js';
import {
  attemptsOf,
  brokerEndpoint,
  emitEvents,
  eventIds,
  expectSecretNowhere,
  hooksPath,
} from '../helpers/destination-scenarios.js';
import { SASL_USER, startSecureKafka, type SecureKafka } from '../helpers/secure-kafka.js';
import { newCompany } from '../helpers/seed.js';
import { eventually } from '../helpers/wait.js';

let kafka: SecureKafka;
beforeAll(async () => {
  kafka = await startSecureKafka();
}, 180_000);
afterAll(async () => {
  await kafka?.remove();
}, 60_000);

describe.each(['sqlite', 'kafka'] as const)('a Kafka destination with SASL or TLS, %s streams', (streams) => {
  let gw: TestGateway;
  const sinks: BrokerSink[] = [];
  const sink = async () => {
    const made = await kafkaSink([kafka.plaintext]);
    sinks.push(made);
    return made;
  };

  beforeAll(async () => {
    gw = await startTestGateway(
      {
        ...TO_RECEIVERS,
        GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0,1s,2s,2s,2s,2s,2s,2s,2s,2s',
        GATEWAY_WEBHOOK_RETRY_JITTER: '0',
      },
      { streams },
    );
  }, 120_000);
  afterAll(async () => {
    for (const s of sinks) await s.close();
    await gw?.close();
  });

  /** A strictly ordered endpoint of a new company on the sink's topic with `settings`; three events emitted. */
  async function endpointWith(target: BrokerSink, settings: Record<string, unknown>) {
    const company = await newCompany(gw);
    const endpoint = await brokerEndpoint(
      gw,
      company,
      { ...target, settings: { ...target.settings, ...settings } },
      { ordering: 'strict' },
    );
    const ids = emitEvents(gw, company, 3).map((e) => e.id);
    return { company, endpoint, ids };
  }

  async function expectDelivered(target: BrokerSink, endpointId: number, ids: string[]) {
    await eventually('the events on the topic', () => eventIds(target.received).length >= ids.length, 60_000);
    expect(eventIds(target.received)).toEqual(ids);
    await eventually('every attempt recorded', () => attemptsOf(gw, endpointId).length >= ids.length, 30_000);
    expect(attemptsOf(gw, endpointId)).toEqual(ids.map(() => ({ error: null, outcome: 'delivered' })));
  }

  it('delivers through SASL PLAIN with the right credentials', async () => {
    const target = await sink();
    const { endpoint, ids } = await endpointWith(target, {
      brokers: [kafka.sasl],
      sasl: { mechanism: 'plain', ...SASL_USER },
    });
    await expectDelivered(target, endpoint.id, ids);
  }, 120_000);

  it('records a wrong SASL password as the attempt error, never the password, then delivers with the right one', async () => {
    const target = await sink();
    const wrong = 'wrong-pass-Zk31v';
    const sasl = { mechanism: 'plain', username: SASL_USER.username, password: wrong };
    const { company, endpoint, ids } = await endpointWith(target, { brokers: [kafka.sasl], sasl });
    await eventually('two failed attempts', () => attemptsOf(gw, endpoint.id).length >= 2, 60_000);
    const [first] = attemptsOf(gw, endpoint.id);
    expect(first).toEqual({
      outcome: 'retry',
      error: expect.stringMatching(/^Kafka: SASL PLAIN authentication failed/) as unknown,
    });
    const apiText = await expectSecretNowhere(gw, company, endpoint.id, [wrong, SASL_USER.password]);
    expect(apiText).toContain('SASL PLAIN authentication failed');
    expect(target.received).toEqual([]);

    const fixed = await gw.request('PATCH', `${hooksPath(company)}/${endpoint.id}`, {
      json: { kafka: { ...target.settings, brokers: [kafka.sasl], sasl: { ...sasl, password: SASL_USER.password } } },
    });
    expect(fixed.status, fixed.text).toBe(200);
    await eventually('the events on the topic', () => eventIds(target.received).length >= ids.length, 60_000);
    expect(eventIds(target.received)).toEqual(ids);
  }, 120_000);

  it('delivers over TLS to a broker whose certificate the given CA signed', async () => {
    const target = await sink();
    const { endpoint, ids } = await endpointWith(target, { brokers: [kafka.tls], tls: { ca: kafka.ca } });
    await expectDelivered(target, endpoint.id, ids);
  }, 120_000);

  it('refuses a broker certificate the given CA did not sign, unless reject_unauthorized is false', async () => {
    const target = await sink();
    const { company, endpoint, ids } = await endpointWith(target, {
      brokers: [kafka.tls],
      tls: { ca: kafka.otherCa },
    });
    await eventually('two failed attempts', () => attemptsOf(gw, endpoint.id).length >= 2, 60_000);
    expect(attemptsOf(gw, endpoint.id)[0]).toEqual({
      outcome: 'retry',
      error: expect.stringMatching(
        /^Kafka: .*(unable to get local issuer certificate|unable to verify the first certificate)/,
      ) as unknown,
    });
    expect(target.received).toEqual([]);

    const lax = await gw.request('PATCH', `${hooksPath(company)}/${endpoint.id}`, {
      json: {
        kafka: { ...target.settings, brokers: [kafka.tls], tls: { ca: kafka.otherCa, reject_unauthorized: false } },
      },
    });
    expect(lax.status, lax.text).toBe(200);
    await eventually('the events on the topic', () => eventIds(target.received).length >= ids.length, 60_000);
    expect(eventIds(target.received)).toEqual(ids);
  }, 120_000);
});
