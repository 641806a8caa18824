import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:http2';
import { promisify } from 'node:util';
import { loadKubeconfig } from '@kapi/client';
import { parseOptions } from '@kapi/kube-apiserver-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAPIExtensionsLite, type RunningAPIExtensionsServer } from './apiextensions-lite.js';

const execFileAsync = promisify(execFile);

describe('apiextensions-lite', () => {
  let running: RunningAPIExtensionsServer;
  let dataDir: string;
  const kubectl = async (args: string[]) =>
    (await execFileAsync(process.env.KUBECTL ?? 'kubectl', ['--kubeconfig', running.kubeconfigPath, ...args])).stdout;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'apiextensions-lite-'));
    // Upstream's recommended options for aggregated servers: 1000 streams (the aggregator multiplexes watches).
    running = await startAPIExtensionsLite(
      parseOptions(['--secure-port=0', `--data-dir=${dataDir}`, '--storage=memory', '--http2-max-streams-per-connection=1000']),
    );
  });

  afterAll(async () => {
    await running?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports ready only once its watch caches are: /readyz lists poststarthook/storage-readiness', async () => {
    let verbose = '';
    for (let i = 0; i < 100 && !verbose.includes('readyz check passed'); i++) {
      verbose = await kubectl(['get', '--raw', '/readyz?verbose']).catch(() => '');
      if (!verbose.includes('readyz check passed')) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(verbose).toContain('[+]poststarthook/storage-readiness ok\n');
    expect(await kubectl(['get', '--raw', '/readyz/poststarthook/storage-readiness'])).toBe('ok');
  });

  it('serves CRDs and their custom resources, and nothing else', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'crontabs.stable.example.com' },
      spec: {
        group: 'stable.example.com',
        scope: 'Cluster',
        names: { plural: 'crontabs', kind: 'CronTab', shortNames: ['ct'] },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' } } } } } },
          },
        ],
      },
    };
    await kubectl(['create', '--raw', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', '-f', writeTemp(crd)]);
    let established = '';
    for (let i = 0; i < 100 && established !== 'True'; i++) {
      established = await kubectl(['get', 'crd', 'crontabs.stable.example.com', '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}']);
      if (established !== 'True') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(established).toBe('True');
    const crontab = { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'nightly' }, spec: { cronSpec: '0 0 * * *', bogus: 1 } };
    await kubectl(['create', '--raw', '/apis/stable.example.com/v1/crontabs', '-f', writeTemp(crontab)]);
    const stored = JSON.parse(await kubectl(['get', '--raw', '/apis/stable.example.com/v1/crontabs/nightly'])) as { spec: unknown };
    expect(stored.spec).toEqual({ cronSpec: '0 0 * * *' });
    const discovery = JSON.parse(await kubectl(['get', '--raw', '/apis/stable.example.com/v1'])) as { resources: Array<{ name: string; storageVersionHash?: string }> };
    expect(discovery.resources.find((r) => r.name === 'crontabs')?.storageVersionHash).toBe('EdX2FP+L0js=');
    await expect(kubectl(['get', '--raw', '/api/v1/namespaces'])).rejects.toThrow('NotFound');
  });

  it('validates custom resources with the Kubernetes CEL ip, cidr, quantity and url libraries', async () => {
    const rule = (expression: string, message: string) => ({ rule: expression, message });
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'subnets.net.example.com' },
      spec: {
        group: 'net.example.com',
        scope: 'Cluster',
        names: { plural: 'subnets', kind: 'Subnet' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    'x-kubernetes-validations': [
                      rule('cidr(self.range).containsIP(self.gateway)', 'gateway must be inside range'),
                      rule('quantity(self.bandwidth).isLessThan(quantity("10Gi"))', 'bandwidth must be below 10Gi'),
                      rule('url(self.endpoint).getScheme() == "https"', 'endpoint must use https'),
                    ],
                    properties: {
                      range: { type: 'string', maxLength: 64 },
                      gateway: { type: 'string', maxLength: 64 },
                      bandwidth: { type: 'string', maxLength: 32 },
                      endpoint: { type: 'string', maxLength: 256 },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    };
    await kubectl(['create', '--raw', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', '-f', writeTemp(crd)]);
    await kubectl(['wait', '--for=condition=Established', 'crd/subnets.net.example.com', '--timeout=30s']);
    const subnet = (name: string, spec: Record<string, string>) => ({ apiVersion: 'net.example.com/v1', kind: 'Subnet', metadata: { name }, spec });
    const good = { range: '10.0.0.0/16', gateway: '10.0.0.1', bandwidth: '500Mi', endpoint: 'https://10.0.0.1:8443/api' };
    await kubectl(['create', '--raw', '/apis/net.example.com/v1/subnets', '-f', writeTemp(subnet('good', good))]);
    const bad = { range: '10.0.0.0/16', gateway: '10.1.0.1', bandwidth: '20Gi', endpoint: 'http://example.com' };
    const refused = await kubectl(['create', '--raw', '/apis/net.example.com/v1/subnets', '-f', writeTemp(subnet('bad', bad))]).then(
      () => '',
      (error: unknown) => String(error),
    );
    expect(refused).toContain('The Subnet "bad" is invalid:');
    for (const message of ['gateway must be inside range', 'bandwidth must be below 10Gi', 'endpoint must use https']) {
      expect(refused).toContain(`spec: Invalid value: ${message}`);
    }
    await expect(kubectl(['get', '--raw', '/apis/net.example.com/v1/subnets/bad'])).rejects.toThrow('NotFound');
  });

  const writeTemp = (object: unknown) => {
    const file = join(dataDir, `${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(object));
    return file;
  };

  it('speaks HTTP/2 and advertises --http2-max-streams-per-connection', async () => {
    const { ca } = loadKubeconfig(running.kubeconfigPath);
    const session = connect(running.url, ca ? { ca } : {});
    try {
      await new Promise<void>((resolve, reject) => {
        session.once('remoteSettings', () => resolve());
        session.once('error', reject);
      });
      expect(session.alpnProtocol).toBe('h2');
      expect(session.remoteSettings.maxConcurrentStreams).toBe(1000);
    } finally {
      session.destroy();
    }
  });
});
