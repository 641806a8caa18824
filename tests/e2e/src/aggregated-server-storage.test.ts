import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeconfig } from '@kapi/client';
import { generateCertificateAuthority, issueClientCertificate, writeKubeconfig, type CertificateAndKey } from '@kapi/server';
import { startEtcd, type EtcdInstance } from '@kapi/storage-etcd3/testing';
import { startAggregatedServer, type TestAggregatedServer } from './aggregated-server.js';
import { httpsCall, type HttpsCallOptions } from './https-call.js';
import { startServer, type TestServer } from './harness.js';

// The aggregated server configured as upstream's delegating authentication does it, from the main server's
// ConfigMap kube-system/extension-apiserver-authentication (no request-header flags), storing in etcd under
// its own prefix at the storage version its flag picks; kubectl talks to it with a main-server client cert.
const group = 'wardle.example.com';
let main: TestServer;
let etcd: EtcdInstance;
let etcdClient: Etcd3;
let wardle: TestAggregatedServer;
let workDir: string;
let frontProxyCA: CertificateAndKey;
let frontProxy: CertificateAndKey;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'kapi-wardle-etcd-'));
  main = await startServer();
  etcd = await startEtcd();
  etcdClient = new Etcd3({ hosts: etcd.endpoint });
  frontProxyCA = generateCertificateAuthority({ commonName: 'front-proxy-ca' });
  frontProxy = issueClientCertificate(frontProxyCA, { commonName: 'front-proxy-client' });
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'extension-apiserver-authentication', namespace: 'kube-system' },
    data: {
      'client-ca-file': readFileSync(join(main.dataDir, 'ca.crt'), 'utf8'),
      'requestheader-client-ca-file': frontProxyCA.certificatePem,
      'requestheader-allowed-names': JSON.stringify(['front-proxy-client']),
      'requestheader-username-headers': JSON.stringify(['X-Remote-User']),
      'requestheader-group-headers': JSON.stringify(['X-Remote-Group']),
      'requestheader-extra-headers-prefix': JSON.stringify(['X-Remote-Extra-']),
    },
  };
  await main.client().request({
    method: 'PATCH',
    path: '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication',
    query: { fieldManager: 'aggregated-server-test', force: true },
    contentType: 'application/apply-patch+yaml',
    body: configMap,
  });
  wardle = await startAggregatedServer(main, {
    args: [`--etcd-servers=${etcd.endpoint}`, '--storage-version=v1alpha1', '--register=false'],
  });
}, 120_000);

afterAll(async () => {
  await wardle?.stop();
  etcdClient?.close();
  await etcd?.stop();
  await main?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** A front-proxied member of system:masters (allowed by the aggregated server without asking). */
const asMaster = (extra: Partial<HttpsCallOptions> = {}): HttpsCallOptions => ({
  ca: wardle.ca,
  cert: frontProxy.certificatePem,
  key: frontProxy.privateKeyPem,
  headers: { 'X-Remote-User': 'root', 'X-Remote-Group': 'system:masters' },
  ...extra,
});

describe('aggregated server configured from the main server', () => {
  it('trusts the request-header CA and allowed names of the ConfigMap', async () => {
    const allowed = await httpsCall(wardle.url, 'GET', `/apis/${group}/v1beta1/fischers`, asMaster());
    expect(allowed.code).toBe(200);
    const intruder = issueClientCertificate(frontProxyCA, { commonName: 'intruder' });
    const refused = await httpsCall(
      wardle.url,
      'GET',
      `/apis/${group}/v1beta1/fischers`,
      asMaster({ cert: intruder.certificatePem, key: intruder.privateKeyPem }),
    );
    expect(refused.code).toBe(401);
  });

  it('follows a change of the ConfigMap (a rotated request-header CA) without a restart', async () => {
    const rotatedCA = generateCertificateAuthority({ commonName: 'front-proxy-ca-2' });
    const rotated = issueClientCertificate(rotatedCA, { commonName: 'front-proxy-client' });
    await main.client().request({
      method: 'PATCH',
      path: '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication',
      contentType: 'application/merge-patch+json',
      body: { data: { 'requestheader-client-ca-file': `${frontProxyCA.certificatePem}${rotatedCA.certificatePem}` } },
    });
    const call = () =>
      httpsCall(wardle.url, 'GET', `/apis/${group}/v1beta1/fischers`, asMaster({ cert: rotated.certificatePem, key: rotated.privateKeyPem }));
    await expect.poll(async () => (await call()).code, { timeout: 20_000, interval: 500 }).toBe(200);
  });

  it('stores in etcd under /registry/wardle.example.com at the --storage-version', async () => {
    const created = await httpsCall(wardle.url, 'POST', `/apis/${group}/v1beta1/namespaces/default/flunders`, {
      ...asMaster(),
      body: { apiVersion: `${group}/v1beta1`, kind: 'Flunder', metadata: { name: 'stored' }, spec: { fischerReference: 'f', referenceType: 'Fischer' } },
    });
    expect(created.code).toBe(201);
    const raw = await etcdClient.get('/registry/wardle.example.com/wardle.example.com/flunders/default/stored').string();
    expect(raw).not.toBeNull();
    expect(JSON.parse(raw ?? '{}')).toMatchObject({
      apiVersion: `${group}/v1alpha1`,
      kind: 'Flunder',
      spec: { reference: 'f', referenceType: 'Fischer' },
    });
  });

  it('serves kubectl with a client certificate of the ConfigMap client CA, with printer columns', async () => {
    const admin = loadKubeconfig(main.kubeconfig);
    const kubeconfig = join(workDir, 'wardle.kubeconfig');
    writeKubeconfig(kubeconfig, {
      server: wardle.url,
      caData: wardle.ca,
      user: { clientCertificateData: admin.cert ?? '', clientKeyData: admin.key ?? '' },
      contextName: 'wardle',
    });
    const run = promisify(execFile);
    const kubectl = process.env['KUBECTL'] ?? 'kubectl';
    const { stdout } = await run(kubectl, ['--kubeconfig', kubeconfig, 'get', `flunders.${group}`, '-n', 'default']);
    const [header, row] = stdout.trim().split('\n');
    expect(header).toMatch(/^NAME\s+REFERENCE-TYPE\s+REFERENCE\s+AGE$/);
    expect(row).toMatch(/^stored\s+Fischer\s+f\s+\S+$/);
  });
});
