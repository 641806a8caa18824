/** Test-only: a throw-away CA with server and client certificates, made with the openssl CLI. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyPair {
  cert: string;
  key: string;
}

export interface TestCertificates {
  ca: string;
  server: KeyPair;
  /** Issues a client certificate from the CA (or from a stranger CA when `untrusted`). */
  client(subject: string, options?: { untrusted?: boolean }): KeyPair;
  dispose(): void;
}

function openssl(directory: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: directory, stdio: 'pipe' });
}

function newCA(directory: string, name: string): void {
  openssl(
    directory,
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-days',
    '1',
    '-subj',
    `/CN=${name}`,
  );
}

function issue(directory: string, ca: string, name: string, subject: string, extensions: string): KeyPair {
  writeFileSync(join(directory, `${name}.ext`), extensions);
  openssl(
    directory,
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    subject,
  );
  openssl(
    directory,
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-set_serial',
    String(Date.now()),
    '-out',
    `${name}.crt`,
    '-days',
    '1',
    '-extfile',
    `${name}.ext`,
  );
  return {
    cert: readFileSync(join(directory, `${name}.crt`), 'utf8'),
    key: readFileSync(join(directory, `${name}.key`), 'utf8'),
  };
}

/** Creates the CA and a server certificate for 127.0.0.1. */
export function createTestCertificates(): TestCertificates {
  const directory = mkdtempSync(join(tmpdir(), 'kapi-filters-certs-'));
  newCA(directory, 'ca');
  newCA(directory, 'stranger');
  const server = issue(
    directory,
    'ca',
    'server',
    '/CN=127.0.0.1',
    'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
  );
  let count = 0;
  return {
    ca: readFileSync(join(directory, 'ca.crt'), 'utf8'),
    server,
    client(subject, options = {}) {
      count += 1;
      return issue(
        directory,
        options.untrusted ? 'stranger' : 'ca',
        `client${count}`,
        subject,
        'extendedKeyUsage=clientAuth\n',
      );
    },
    dispose: () => rmSync(directory, { recursive: true, force: true }),
  };
}
