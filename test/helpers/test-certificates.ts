// Certificates made with openssl at test time, for brokers with TLS listeners: a CA, a server key and
// certificate it signed for 127.0.0.1 and localhost, and a second CA that signed nothing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface TestCertificates {
  /** Paths of the PEM files. */
  caFile: string;
  certFile: string;
  keyFile: string;
  /** The unencrypted PKCS#8 key followed by the certificate: Kafka's PEM keystore. */
  keystoreFile: string;
  /** PEM text of the CA that signed the server certificate, and of one that did not. */
  ca: string;
  otherCa: string;
}

export function makeTestCertificates(dir: string): TestCertificates {
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
    file('server.key'),
    '-out',
    file('server.csr'),
  );
  fs.writeFileSync(file('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('test-ca.pem'),
    '-CAkey',
    file('test-ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  );
  const keystoreFile = file('server-keystore.pem');
  fs.writeFileSync(
    keystoreFile,
    fs.readFileSync(file('server.key'), 'utf8') + fs.readFileSync(file('server.pem'), 'utf8'),
  );
  return {
    caFile: file('test-ca.pem'),
    certFile: file('server.pem'),
    keyFile: file('server.key'),
    keystoreFile,
    ca: fs.readFileSync(file('test-ca.pem'), 'utf8'),
    otherCa: fs.readFileSync(file('other-ca.pem'), 'utf8'),
  };
}
