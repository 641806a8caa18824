import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { writeKubeconfig } from './kubeconfig.js';

const dir = mkdtempSync(join(tmpdir(), 'kapi-kubeconfig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('writeKubeconfig', () => {
  it('writes clusters, users, contexts and current-context with base64 data, mode 0600', () => {
    const path = join(dir, 'nested', 'admin.kubeconfig');
    writeKubeconfig(path, {
      server: 'https://127.0.0.1:6443',
      caData: '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n',
      user: { clientCertificateData: 'CERT', clientKeyData: 'KEY' },
      contextName: 'kapi',
    });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const config = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    expect(config).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'kapi',
          cluster: {
            server: 'https://127.0.0.1:6443',
            'certificate-authority-data': Buffer.from('-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n').toString('base64'),
          },
        },
      ],
      users: [{ name: 'kapi-admin', user: { 'client-certificate-data': 'Q0VSVA==', 'client-key-data': 'S0VZ' } }],
      contexts: [{ name: 'kapi', context: { cluster: 'kapi', user: 'kapi-admin' } }],
      'current-context': 'kapi',
      preferences: {},
    });
  });

  it('supports bearer tokens, custom names and a namespace', () => {
    const path = join(dir, 'token.kubeconfig');
    writeKubeconfig(path, {
      server: 'https://localhost:6443',
      user: { token: 'secret-token' },
      contextName: 'dev',
      clusterName: 'lab',
      userName: 'alice',
      namespace: 'team-a',
    });
    const config = parse(readFileSync(path, 'utf8')) as { users: unknown[]; contexts: unknown[]; clusters: unknown[] };
    expect(config.users).toEqual([{ name: 'alice', user: { token: 'secret-token' } }]);
    expect(config.contexts).toEqual([{ name: 'dev', context: { cluster: 'lab', user: 'alice', namespace: 'team-a' } }]);
    expect(config.clusters).toEqual([{ name: 'lab', cluster: { server: 'https://localhost:6443' } }]);
  });
});
