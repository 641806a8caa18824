import { describe, expect, it } from 'vitest';
import { kubectl } from './harness.js';
import { serverForFile } from './server-for-file.js';

// Services' cluster IPs from --service-cluster-ip-range and node ports from --service-node-port-range,
// unique, kept and released as upstream's; the `kubernetes` Service on the range's first address. A /28
// (14 usable addresses) lets a test fill it.
const shared = serverForFile({
  args: ['--service-cluster-ip-range=10.96.0.0/28', '--service-node-port-range=31000-31099'],
});

interface Service {
  metadata: { name: string; resourceVersion?: string };
  spec: {
    type?: string;
    clusterIP?: string;
    clusterIPs?: string[];
    ipFamilies?: string[];
    ipFamilyPolicy?: string;
    internalTrafficPolicy?: string;
    externalTrafficPolicy?: string;
    allocateLoadBalancerNodePorts?: boolean;
    ports?: Array<{ port: number; nodePort?: number; protocol?: string }>;
  };
}

const path = (namespace: string, name = '') =>
  `/api/v1/namespaces/${namespace}/services${name ? `/${name}` : ''}`;

async function call(method: 'GET' | 'POST' | 'PUT', target: string, body?: unknown) {
  const response = await shared.admin.raw({ method, path: target, ...(body === undefined ? {} : { body }) });
  return {
    code: response.statusCode,
    body: JSON.parse(response.body.toString() || '{}') as Record<string, unknown> & Service,
  };
}

const service = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: { ports: [{ port: 80 }], ...spec },
});

describe('Service cluster IPs and node ports', () => {
  it('serves the kubernetes Service on the first address, with an EndpointSlice naming this server', async () => {
    const out = await kubectl(shared.server, ['get', 'service', 'kubernetes', '-n', 'default']);
    expect(out.trim().split('\n')[1]).toMatch(
      /^kubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443\/TCP\s+/,
    );
    const port = Number(new URL(shared.server.url).port);
    const slice = await call('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
    expect(slice.body).toMatchObject({
      metadata: { labels: { 'kubernetes.io/service-name': 'kubernetes' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
      ports: [{ name: 'https', port, protocol: 'TCP' }],
    });
    const endpoints = await call('GET', '/api/v1/namespaces/default/endpoints/kubernetes');
    expect(endpoints.body).toMatchObject({
      subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port, protocol: 'TCP' }] }],
    });
    const kubernetes = await call('GET', path('default', 'kubernetes'));
    expect(kubernetes.body.spec.ports).toEqual([
      { name: 'https', port: 443, protocol: 'TCP', targetPort: port },
    ]);
    const readyz = await shared.admin.raw({ method: 'GET', path: '/readyz?verbose' });
    expect(readyz.body.toString()).toContain('[+]poststarthook/bootstrap-controller ok');
    expect(readyz.body.toString()).toContain('[+]poststarthook/start-service-ip-repair-controllers ok');
  });

  it('makes the kubernetes Service and its EndpointSlice again when deleted, on the same address', async () => {
    await kubectl(shared.server, ['delete', 'service', 'kubernetes', '-n', 'default']);
    await kubectl(shared.server, ['delete', 'endpointslice', 'kubernetes', '-n', 'default']);
    expect((await call('GET', path('default', 'kubernetes'))).code).toBe(404);
    // The bootstrap controller looks every 10 seconds (upstream's EndpointInterval).
    const deadline = Date.now() + 25_000;
    let service = await call('GET', path('default', 'kubernetes'));
    while (service.code === 404 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      service = await call('GET', path('default', 'kubernetes'));
    }
    expect(service.code).toBe(200);
    expect(service.body.spec.clusterIP).toBe('10.96.0.1');
    const slice = await call('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
    expect(slice.code).toBe(200);
  }, 40_000);

  it('gives each Service its own address with single-stack defaults, until the range is full; a deleted Service frees its address', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'fill']);
    // 13 addresses are left beside the kubernetes Service's.
    const ips: string[] = [];
    for (let i = 0; i < 13; i++) {
      if (i === 12) {
        // A create refused after its cluster IP was allocated (its node port is outside the range) releases
        // the address again (the last one left here).
        for (let again = 0; again < 3; again++) {
          const refused = await call(
            'POST',
            path('fill'),
            service(`np-${again}`, { type: 'NodePort', ports: [{ port: 80, nodePort: 30000 }] }),
          );
          expect(refused.code).toBe(422);
        }
      }
      if (i === 1) {
        // Creates of an existing name fail without holding an address (the range would not fill otherwise).
        for (let again = 0; again < 3; again++)
          expect((await call('POST', path('fill'), service('s0'))).code).toBe(409);
      }
      const created = await call('POST', path('fill'), service(`s${i}`));
      expect(created.code).toBe(201);
      expect(created.body.spec).toMatchObject({
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        internalTrafficPolicy: 'Cluster',
      });
      expect(created.body.spec.clusterIPs).toEqual([created.body.spec.clusterIP]);
      ips.push(created.body.spec.clusterIP ?? '');
    }
    expect(new Set(ips).size).toBe(13);
    for (const ip of ips) expect(ip).toMatch(/^10\.96\.0\.([2-9]|1[0-4])$/);

    const full = await call('POST', path('fill'), service('one-too-many'));
    expect(full.code).toBe(500);
    expect(full.body.message).toBe('Internal error occurred: failed to allocate a serviceIP: range is full');
    expect((await call('GET', path('fill', 'one-too-many'))).code).toBe(404);

    await kubectl(shared.server, ['delete', 'service', 's0', '-n', 'fill']);
    // Released once the repair controller sees the deletion.
    await expect
      .poll(async () => (await call('POST', path('fill'), service('reuses', { clusterIP: ips[0] }))).code, {
        timeout: 10_000,
      })
      .toBe(201);
    // The namespace's deletion frees the rest for the tests below.
    await kubectl(shared.server, ['delete', 'namespace', 'fill', '--timeout=60s']);
  });

  it('keeps an address a request names when it is free and in range; refuses a taken or outside one, storing nothing', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'named']);
    await expect
      .poll(
        async () => (await call('POST', path('named'), service('dns', { clusterIP: '10.96.0.10' }))).code,
        { timeout: 10_000 },
      )
      .toBe(201);
    expect((await call('GET', path('named', 'dns'))).body.spec.clusterIPs).toEqual(['10.96.0.10']);
    const taken = await call('POST', path('named'), service('dns2', { clusterIP: '10.96.0.10' }));
    expect(taken.code).toBe(422);
    expect(taken.body.message).toBe(
      'Service "dns2" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.10"]: failed to allocate IP 10.96.0.10: provided IP is already allocated',
    );
    const outside = await call('POST', path('named'), service('far', { clusterIP: '10.0.0.10' }));
    expect(outside.code).toBe(422);
    expect(outside.body.message).toContain(
      'failed to allocate IP 10.0.0.10: the provided IP (10.0.0.10) is not in the valid range. The range of valid IPs is 10.96.0.0/28',
    );
    const malformed = await call('POST', path('named'), service('bad', { clusterIP: '10.96.0.300' }));
    expect(malformed.code).toBe(422);
    expect(malformed.body.message).toContain('spec.clusterIPs[0]: Invalid value: "10.96.0.300"');
    for (const name of ['dns2', 'far', 'bad'])
      expect((await call('GET', path('named', name))).code).toBe(404);

    // kubectl's error for a taken address is upstream's.
    const refused = await kubectl(shared.server, [
      'create',
      'service',
      'clusterip',
      'again',
      '--tcp=53',
      '--clusterip=10.96.0.10',
      '-n',
      'named',
    ]).then(
      () => '',
      (error: Error) => error.message,
    );
    expect(refused).toContain(
      'spec.clusterIPs: Invalid value: ["10.96.0.10"]: failed to allocate IP 10.96.0.10: provided IP is already allocated',
    );
  });

  it('allocates nothing for headless and ExternalName Services, and refuses an address on an ExternalName one', async () => {
    const headless = await call('POST', path('named'), service('headless', { clusterIP: 'None' }));
    expect(headless.body.spec).toMatchObject({
      clusterIP: 'None',
      clusterIPs: ['None'],
      ipFamilyPolicy: 'SingleStack',
    });
    const external = await call('POST', path('named'), {
      ...service('ext', { type: 'ExternalName', externalName: 'example.com' }),
    });
    expect(external.code).toBe(201);
    expect(external.body.spec.clusterIP).toBeUndefined();
    expect(external.body.spec.ipFamilies).toBeUndefined();
    const refused = await call(
      'POST',
      path('named'),
      service('ext2', { type: 'ExternalName', externalName: 'example.com', clusterIP: '10.96.0.11' }),
    );
    expect(refused.code).toBe(422);
    expect(refused.body.message).toBe(
      'Service "ext2" is invalid: spec.clusterIPs: Forbidden: may not be set for ExternalName services',
    );
  });

  it('keeps the address on a replace or apply that leaves it out, and refuses a change', async () => {
    const created = await call('POST', path('named'), service('web'));
    const ip = created.body.spec.clusterIP;
    expect(ip).toMatch(/^10\.96\.0\.\d+$/);
    const replaced = await call('PUT', path('named', 'web'), {
      ...service('web', { ports: [{ port: 8080 }] }),
      metadata: { name: 'web', resourceVersion: created.body.metadata.resourceVersion },
    });
    expect(replaced.code).toBe(200);
    expect(replaced.body.spec).toMatchObject({ clusterIP: ip, clusterIPs: [ip], ports: [{ port: 8080 }] });
    await kubectl(
      shared.server,
      ['apply', '-n', 'named', '-f', '-'],
      'apiVersion: v1\nkind: Service\nmetadata: { name: web }\nspec: { ports: [{ port: 9090 }] }\n',
    );
    expect((await call('GET', path('named', 'web'))).body.spec.clusterIP).toBe(ip);
    // The allocator picks at random: ask for an address that is not the one it gave.
    const other = ip === '10.96.0.12' ? '10.96.0.14' : '10.96.0.12';
    const patch = await shared.admin.raw({
      method: 'PATCH',
      path: path('named', 'web'),
      contentType: 'application/merge-patch+json',
      body: { spec: { clusterIP: other, clusterIPs: [other] } },
    });
    expect(patch.statusCode).toBe(422);
    expect(JSON.parse(patch.body.toString()).message).toBe(
      `Service "web" is invalid: spec.clusterIPs[0]: Invalid value: "${other}": may not change once set`,
    );
  });

  it('shows an address on a dry-run create without keeping it', async () => {
    // An address no Service holds (the earlier tests' Services took some at random).
    const list = await shared.admin.raw({ method: 'GET', path: '/api/v1/services' });
    const held = new Set(
      (JSON.parse(list.body.toString()) as { items: Service[] }).items.map((item) => item.spec.clusterIP),
    );
    const free = [11, 12, 13, 14, 9, 8, 7].map((n) => `10.96.0.${n}`).find((ip) => !held.has(ip)) ?? '';
    const dryRun = () =>
      kubectl(shared.server, [
        'create',
        'service',
        'clusterip',
        'dry',
        '--tcp=80',
        `--clusterip=${free}`,
        '--dry-run=server',
        '-o',
        'jsonpath={.spec.clusterIP}',
        '-n',
        'named',
      ]).catch((error: Error) => error.message);
    // A deleted Service's address is free once the repair controller has seen the deletion.
    await expect.poll(dryRun, { timeout: 10_000 }).toBe(free);
    expect((await call('GET', path('named', 'dry'))).code).toBe(404);
    expect((await call('POST', path('named'), service('after-dry', { clusterIP: free }))).code).toBe(201);
  });

  it('gives NodePort and LoadBalancer Services node ports from the range, shown by kubectl; upstream 422s for a taken, outside or misplaced one', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'ports']);
    await kubectl(shared.server, ['create', 'service', 'nodeport', 'np', '--tcp=80:8080', '-n', 'ports']);
    const np = (await call('GET', path('ports', 'np'))).body;
    const nodePort = np.spec.ports?.[0]?.nodePort ?? 0;
    expect(nodePort).toBeGreaterThanOrEqual(31000);
    expect(nodePort).toBeLessThanOrEqual(31099);
    expect(np.spec.externalTrafficPolicy).toBe('Cluster');
    const row = (await kubectl(shared.server, ['get', 'service', 'np', '-n', 'ports'])).trim().split('\n')[1];
    expect(row).toMatch(
      new RegExp(`^np\\s+NodePort\\s+10\\.96\\.0\\.\\d+\\s+<none>\\s+80:${nodePort}/TCP\\s+`),
    );

    const lb = await call(
      'POST',
      path('ports'),
      service('lb', {
        type: 'LoadBalancer',
        ports: [
          { name: 'http', port: 80 },
          { name: 'https', port: 443 },
        ],
      }),
    );
    expect(lb.body.spec.allocateLoadBalancerNodePorts).toBe(true);
    const lbPorts = (lb.body.spec.ports ?? []).map((port) => port.nodePort);
    expect(new Set([nodePort, ...lbPorts]).size).toBe(3);
    const bare = await call(
      'POST',
      path('ports'),
      service('lb-bare', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false }),
    );
    expect(bare.body.spec.ports?.[0]?.nodePort).toBeUndefined();

    const taken = await call(
      'POST',
      path('ports'),
      service('np2', { type: 'NodePort', ports: [{ port: 80, nodePort }] }),
    );
    expect(taken.code).toBe(422);
    expect(taken.body.message).toBe(
      `Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: ${nodePort}: provided port is already allocated`,
    );
    const outside = await call(
      'POST',
      path('ports'),
      service('np3', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }),
    );
    expect(outside.body.message).toBe(
      'Service "np3" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is not in the valid range. The range of valid ports is 31000-31099',
    );
    const misplaced = await call(
      'POST',
      path('ports'),
      service('np4', { ports: [{ port: 80, nodePort: 31050 }] }),
    );
    expect(misplaced.body.message).toBe(
      'Service "np4" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is \'ClusterIP\'',
    );
    for (const name of ['np2', 'np3', 'np4']) expect((await call('GET', path('ports', name))).code).toBe(404);
  });

  it('keeps node ports on a replace that leaves them out, and frees them when the Service becomes ClusterIP', async () => {
    const created = await call('POST', path('ports'), service('moves', { type: 'NodePort' }));
    const nodePort = created.body.spec.ports?.[0]?.nodePort;
    const replaced = await call('PUT', path('ports', 'moves'), {
      ...service('moves', { type: 'NodePort' }),
      metadata: { name: 'moves', resourceVersion: created.body.metadata.resourceVersion },
    });
    expect(replaced.body.spec.ports?.[0]?.nodePort).toBe(nodePort);
    const patched = await shared.admin.raw({
      method: 'PATCH',
      path: path('ports', 'moves'),
      contentType: 'application/merge-patch+json',
      body: { spec: { type: 'ClusterIP' } },
    });
    expect(patched.statusCode).toBe(200);
    const clusterIPService = JSON.parse(patched.body.toString()) as Service;
    expect(clusterIPService.spec.ports?.[0]?.nodePort).toBeUndefined();
    expect(clusterIPService.spec.externalTrafficPolicy).toBeUndefined();
    expect(clusterIPService.spec.clusterIP).toBe(created.body.spec.clusterIP);
    await expect
      .poll(
        async () =>
          (
            await call(
              'POST',
              path('ports'),
              service('takes-it', { type: 'NodePort', ports: [{ port: 80, nodePort }] }),
            )
          ).code,
        { timeout: 10_000 },
      )
      .toBe(201);
  });

  it('wipes the cluster IP of a Service updated to ExternalName and frees it', async () => {
    const created = await call(
      'POST',
      path('ports'),
      service('becomes-external', { type: 'LoadBalancer', loadBalancerClass: 'example.com/vip' }),
    );
    const ip = created.body.spec.clusterIP;
    const patched = await shared.admin.raw({
      method: 'PATCH',
      path: path('ports', 'becomes-external'),
      contentType: 'application/merge-patch+json',
      body: { spec: { type: 'ExternalName', externalName: 'example.com' } },
    });
    expect(patched.statusCode).toBe(200);
    const spec = (JSON.parse(patched.body.toString()) as { spec: Record<string, unknown> & Service['spec'] })
      .spec;
    for (const field of [
      'clusterIP',
      'clusterIPs',
      'ipFamilies',
      'ipFamilyPolicy',
      'externalTrafficPolicy',
      'allocateLoadBalancerNodePorts',
      'loadBalancerClass',
    ])
      expect(spec[field], field).toBeUndefined();
    expect(spec.ports?.[0]?.nodePort).toBeUndefined();
    await expect
      .poll(async () => (await call('POST', path('ports'), service('takes-ip', { clusterIP: ip }))).code, {
        timeout: 10_000,
      })
      .toBe(201);
    const misplaced = await call(
      'POST',
      path('ports'),
      service('misplaced', { externalTrafficPolicy: 'Local', loadBalancerClass: 'x' }),
    );
    expect(misplaced.body.message).toBe(
      "Service \"misplaced\" is invalid: [spec.externalTrafficPolicy: Invalid value: \"Local\": may only be set when `type` is 'NodePort' or 'LoadBalancer', spec.loadBalancerClass: Forbidden: may only be used when `type` is 'LoadBalancer']",
    );
  });

  it('gives a LoadBalancer with externalTrafficPolicy Local a health check node port, kept and immutable, dropped with Cluster', async () => {
    const created = await call(
      'POST',
      path('ports'),
      service('local', {
        type: 'LoadBalancer',
        externalTrafficPolicy: 'Local',
        loadBalancerSourceRanges: ['10.0.0.0/8'],
        sessionAffinity: 'ClientIP',
      }),
    );
    expect(created.code).toBe(201);
    const spec = created.body.spec as Service['spec'] & Record<string, unknown>;
    const healthCheck = spec['healthCheckNodePort'] as number;
    expect(healthCheck).toBeGreaterThanOrEqual(31000);
    expect(healthCheck).not.toBe(spec.ports?.[0]?.nodePort);
    expect(spec['loadBalancerSourceRanges']).toEqual(['10.0.0.0/8']);
    expect(spec['sessionAffinityConfig']).toEqual({ clientIP: { timeoutSeconds: 10800 } });

    const taken = await call(
      'POST',
      path('ports'),
      service('local2', {
        type: 'LoadBalancer',
        externalTrafficPolicy: 'Local',
        healthCheckNodePort: healthCheck,
      }),
    );
    expect(taken.body.message).toBe(
      `Service "local2" is invalid: spec.healthCheckNodePort: Invalid value: ${healthCheck}: provided port is already allocated`,
    );
    const misplaced = await call(
      'POST',
      path('ports'),
      service('local3', { type: 'NodePort', healthCheckNodePort: 31090, internalTrafficPolicy: 'Nearby' }),
    );
    expect(misplaced.body.message).toBe(
      'Service "local3" is invalid: [spec.internalTrafficPolicy: Unsupported value: "Nearby": supported values: "Cluster", "Local", spec.healthCheckNodePort: Invalid value: 31090: may only be set when `type` is \'LoadBalancer\' and `externalTrafficPolicy` is \'Local\']',
    );

    const patch = (body: unknown) =>
      shared.admin.raw({
        method: 'PATCH',
        path: path('ports', 'local'),
        contentType: 'application/merge-patch+json',
        body,
      });
    const changed = await patch({ spec: { healthCheckNodePort: healthCheck + 1 } });
    expect(JSON.parse(changed.body.toString()).message).toBe(
      `Service "local" is invalid: spec.healthCheckNodePort: Invalid value: ${healthCheck + 1}: field is immutable`,
    );
    const toCluster = await patch({ spec: { externalTrafficPolicy: 'Cluster' } });
    expect(toCluster.statusCode).toBe(200);
    expect(JSON.parse(toCluster.body.toString()).spec.healthCheckNodePort).toBeUndefined();
    // Released once the repair controller sees the change.
    await expect
      .poll(
        async () =>
          (
            await call(
              'POST',
              path('ports'),
              service('takes-health-check', {
                type: 'NodePort',
                ports: [{ port: 80, nodePort: healthCheck }],
              }),
            )
          ).code,
        { timeout: 10_000 },
      )
      .toBe(201);
  });
});
