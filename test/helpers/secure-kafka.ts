// A private Kafka broker (test/helpers/private-broker.ts) that a company would secure: beside its
// PLAINTEXT listener (the tests' own readers and admin) a SASL_PLAINTEXT listener taking PLAIN
// credentials and an SSL listener whose certificate a test CA signed (test/helpers/test-certificates.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';
import { startPrivateBroker, type PrivateBroker } from './private-broker.js';
import { makeTestCertificates } from './test-certificates.js';

/** The one user the SASL listener knows. */
export const SASL_USER = { username: 'company-producer', password: 'sasl-pass-7Qx9w' } as const;

export interface SecureKafka {
  broker: PrivateBroker;
  /** `127.0.0.1:<port>` of the PLAINTEXT listener: for the tests' readers. */
  plaintext: string;
  /** `127.0.0.1:<port>` of the SASL_PLAINTEXT (PLAIN) listener. */
  sasl: string;
  /** `127.0.0.1:<port>` of the SSL listener (a certificate for 127.0.0.1 and localhost). */
  tls: string;
  /** PEM of the CA that signed the SSL listener's certificate. */
  ca: string;
  /** PEM of a CA that signed nothing the broker has. */
  otherCa: string;
  remove(): Promise<void>;
}

export async function startSecureKafka(): Promise<SecureKafka> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secure-kafka-'));
  const certs = makeTestCertificates(dir);
  const [saslPort, tlsPort] = [await freePort(), await freePort()];
  const broker = await startPrivateBroker('secure-kafka', (port) =>
    [
      `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${port + 1},SASL_PLAINTEXT://127.0.0.1:${saslPort},SSL://127.0.0.1:${tlsPort}`,
      `advertised.listeners=PLAINTEXT://127.0.0.1:${port},SASL_PLAINTEXT://127.0.0.1:${saslPort},SSL://127.0.0.1:${tlsPort}`,
      'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SSL:SSL',
      'sasl.enabled.mechanisms=PLAIN',
      'listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required ' +
        `user_${SASL_USER.username}="${SASL_USER.password}";`,
      'ssl.keystore.type=PEM',
      `ssl.keystore.location=${certs.keystoreFile}`,
      'ssl.client.auth=none',
    ].join('\n'),
  );
  return {
    broker,
    plaintext: broker.brokers,
    sasl: `127.0.0.1:${saslPort}`,
    tls: `127.0.0.1:${tlsPort}`,
    ca: certs.ca,
    otherCa: certs.otherCa,
    async remove() {
      await broker.remove();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
