// A private Kafka broker (test/helpers/private-broker.ts) that a company would secure: beside its
// PLAINTEXT listener (the tests' own readers and admin) a SASL_PLAINTEXT listener taking PLAIN
// credentials and an SSL listener whose certificate a test CA signed. The CA, a second unrelated CA
// and the broker's key and certificate are made with openssl at test time in a temp dir.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';
import { startPrivateBroker, type PrivateBroker } from './private-broker.js';

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
  const certs = makeCertificates(dir);
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
      `ssl.keystore.location=${certs.keystore}`,
      'ssl.client.auth=none',
    ].join('\n'),
  );
  return {
    broker,
    plaintext: broker.brokers,
    sasl: `127.0.0.1:${saslPort}`,
    tls: `127.0.0.1:${tlsPort}`,
    ca: fs.readFileSync(certs.ca, 'utf8'),
    otherCa: fs.readFileSync(certs.otherCa, 'utf8'),
    async remove() {
      await broker.remove();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A CA, a broker certificate it signed (SAN 127.0.0.1, localhost) and an unrelated CA. */
function makeCertificates(dir: string): { ca: string; otherCa: string; keystore: string } {
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const selfSigned = (name: string) =>
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-keyout',
      file(`${name}.key`),
      '-out',
      file(`${name}.pem`),
    );
  selfSigned('test-ca');
  selfSigned('other-ca');
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    file('broker.key'),
    '-out',
    file('broker.csr'),
  );
  fs.writeFileSync(file('broker.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    'x509',
    '-req',
    '-in',
    file('broker.csr'),
    '-CA',
    file('test-ca.pem'),
    '-CAkey',
    file('test-ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('broker.ext'),
    '-out',
    file('broker.pem'),
  );
  // Kafka's PEM keystore: the unencrypted PKCS#8 key, then the certificate chain.
  const keystore = file('broker-keystore.pem');
  fs.writeFileSync(keystore, fs.readFileSync(file('broker.key'), 'utf8') + fs.readFileSync(file('broker.pem'), 'utf8'));
  return { ca: file('test-ca.pem'), otherCa: file('other-ca.pem'), keystore };
}
