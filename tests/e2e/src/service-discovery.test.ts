import { readFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubectl } from './harness.js';
import { serverForFile } from './server-for-file.js';

// Storage-only v1 Services and discovery.k8s.io/v1 EndpointSlices (what the aggregator routes through).
const shared = serverForFile();

async function post(path: string, body: unknown) {
  const response = await shared.admin.raw({ method: 'POST', path, body });
  return {
    code: response.statusCode,
    body: JSON.parse(response.body.toString() || '{}') as Record<string, unknown>,
  };
}

describe('Services and EndpointSlices', () => {
  it('kubectl applies and lists a Service with upstream columns and defaults', async () => {
    const service = `apiVersion: v1
kind: Service
metadata: { name: api }
spec:
  ports:
  - { name: 443-8443, port: 443, targetPort: 8443 }
`;
    await kubectl(shared.server, ['apply', '-f', '-'], service);
    const out = await kubectl(shared.server, ['get', 'services']);
    const [header, row] = out.trim().split('\n');
    expect(header).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$/);
    expect(row).toMatch(/^api\s+ClusterIP\s+10\.0\.0\.\d+\s+<none>\s+443\/TCP\s+/);
    const stored = await shared.admin.request<{ spec: Record<string, unknown> }>({
      method: 'GET',
      path: '/api/v1/namespaces/default/services/api',
    });
    expect(stored.spec).toMatchObject({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ports: [{ port: 443, protocol: 'TCP', targetPort: 8443 }],
    });
  });

  it('kubectl create service (protobuf bodies) makes each type, listed with upstream columns', async () => {
    await kubectl(shared.server, ['create', 'namespace', 'created']);
    const create = (args: string[]) =>
      kubectl(shared.server, ['create', 'service', ...args, '-n', 'created']);
    expect(await create(['clusterip', 'my-svc', '--tcp=80:8080'])).toBe('service/my-svc created\n');
    expect(await create(['nodeport', 'my-np', '--tcp=5678:8080', '--node-port=30080'])).toBe(
      'service/my-np created\n',
    );
    expect(await create(['loadbalancer', 'my-lb', '--tcp=5678:8080'])).toBe('service/my-lb created\n');
    expect(await create(['externalname', 'my-ext', '--external-name=bar.com'])).toBe(
      'service/my-ext created\n',
    );
    const rows = (await kubectl(shared.server, ['get', 'svc', '-n', 'created'])).trim().split('\n');
    expect(rows[0]).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$/);
    expect(rows.slice(1)).toEqual([
      expect.stringMatching(/^my-ext\s+ExternalName\s+<none>\s+bar\.com\s+<none>\s+\d+s$/),
      expect.stringMatching(/^my-lb\s+LoadBalancer\s+10\.0\.0\.\d+\s+<pending>\s+5678:3\d{4}\/TCP\s+\d+s$/),
      expect.stringMatching(/^my-np\s+NodePort\s+10\.0\.0\.\d+\s+<none>\s+5678:30080\/TCP\s+\d+s$/),
      expect.stringMatching(/^my-svc\s+ClusterIP\s+10\.0\.0\.\d+\s+<none>\s+80\/TCP\s+\d+s$/),
    ]);
    const wide = (
      await kubectl(shared.server, ['get', 'svc', 'my-svc', 'my-ext', '-n', 'created', '-o', 'wide'])
    )
      .trim()
      .split('\n');
    expect(wide[0]).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\s+SELECTOR$/);
    expect(wide[1]).toMatch(/^my-svc\s+ClusterIP\s+\S+\s+<none>\s+80\/TCP\s+\d+s\s+app=my-svc$/);
    expect(wide[2]).toMatch(/^my-ext\s+ExternalName\s+<none>\s+bar\.com\s+<none>\s+\d+s\s+app=my-ext$/);
    const stored = await shared.admin.request<{
      metadata: { labels: Record<string, string> };
      spec: Record<string, unknown>;
    }>({
      method: 'GET',
      path: '/api/v1/namespaces/created/services/my-np',
    });
    expect(stored.metadata.labels).toEqual({ app: 'my-np' });
    expect(stored.spec).toMatchObject({
      type: 'NodePort',
      selector: { app: 'my-np' },
      ports: [{ name: '5678-8080', port: 5678, protocol: 'TCP', targetPort: 8080, nodePort: 30080 }],
    });
  });

  it('kubectl applies and lists an EndpointSlice for the service', async () => {
    const slice = `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: api-1
  labels: { kubernetes.io/service-name: api }
addressType: IPv4
endpoints:
- addresses: ["127.0.0.1"]
  conditions: { ready: true }
ports:
- name: 443-8443
  port: 8443
`;
    await kubectl(shared.server, ['apply', '-f', '-'], slice);
    const out = await kubectl(shared.server, [
      'get',
      'endpointslices',
      '-l',
      'kubernetes.io/service-name=api',
    ]);
    const [header, row] = out.trim().split('\n');
    expect(header).toMatch(/^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE$/);
    expect(row).toMatch(/^api-1\s+IPv4\s+8443\s+127\.0\.0\.1\s+/);
  });

  it('refuses a Service without ports and an EndpointSlice with an unknown addressType, storing nothing', async () => {
    const noPorts = await post('/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'empty' },
      spec: {},
    });
    expect(noPorts.code).toBe(422);
    expect(noPorts.body['message']).toBe('Service "empty" is invalid: spec.ports: Required value');

    const badPorts = await post('/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'bad-ports' },
      spec: {
        ports: [
          { name: 'web', port: 80 },
          { name: 'web', port: 81, protocol: 'ICMP' },
          { name: 'Bad_Name', port: 82 },
        ],
      },
    });
    expect(badPorts.code).toBe(422);
    expect(badPorts.body['message']).toBe(
      'Service "bad-ports" is invalid: [spec.ports[1].name: Duplicate value: "web", spec.ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP", spec.ports[2].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')]',
    );
    const badName = await post('/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'bad-external' },
      spec: { type: 'ExternalName', externalName: 'Not_A.Host' },
    });
    expect(badName.code).toBe(422);
    expect(badName.body['message']).toContain(
      'spec.externalName: Invalid value: "Not_A.Host": a lowercase RFC 1123 subdomain must consist of',
    );
    const fqdn = await post('/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'fqdn' },
      spec: { type: 'ExternalName', externalName: 'example.com.' },
    });
    expect(fqdn.code).toBe(201);

    // The rest of upstream's ValidateService: each refused with its own text, and nothing stored.
    const refused: Array<[string, Record<string, unknown>, string]> = [
      ['target-name', { ports: [{ port: 80, targetPort: 'bad name!' }] }, 'spec.ports[0].targetPort: Invalid value: "bad name!": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'],
      ['target-long', { ports: [{ port: 80, targetPort: 'a-very-long-port-name' }] }, 'spec.ports[0].targetPort: Invalid value: "a-very-long-port-name": must be no more than 15 characters'],
      ['target-range', { ports: [{ port: 80, targetPort: 70000 }] }, 'spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive'],
      ['app-protocol', { ports: [{ port: 80, appProtocol: 'bad proto!' }] }, 'spec.ports[0].appProtocol: Invalid value: "bad proto!": name part must consist of alphanumeric characters'],
      ['dup-port', { ports: [{ name: 'a', port: 80 }, { name: 'b', port: 80 }] }, 'spec.ports[1]: Duplicate value: '],
      ['selector', { selector: { app: 'b c' }, ports: [{ port: 80 }] }, 'spec.selector: Invalid value: "b c": a valid label must be an empty string or consist of alphanumeric characters'],
      ['affinity', { sessionAffinity: 'Sticky', ports: [{ port: 80 }] }, 'spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"'],
      ['affinity-config', { sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } }, ports: [{ port: 80 }] }, 'spec.sessionAffinityConfig: Forbidden: must not be set when session affinity is None'],
      ['affinity-timeout', { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 999999 } }, ports: [{ port: 80 }] }, 'spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 999999: must be greater than 0 and less than 86400'],
      ['external-ip', { externalIPs: ['x'], ports: [{ port: 80 }] }, 'spec.externalIPs[0]: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
      ['loopback-ip', { externalIPs: ['127.0.0.1'], ports: [{ port: 80 }] }, 'spec.externalIPs[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)'],
      ['source-range', { type: 'LoadBalancer', loadBalancerSourceRanges: ['10.0.0.0/33'], ports: [{ port: 80 }] }, 'spec.LoadBalancerSourceRanges[0]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'],
      ['source-type', { loadBalancerSourceRanges: ['10.0.0.0/8'], ports: [{ port: 80 }] }, "spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'"],
      ['headless-np', { type: 'NodePort', clusterIP: 'None', ports: [{ port: 80 }] }, `spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`],
      ['dual-stack', { ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80 }] }, 'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services'],
      ['family-policy', { ipFamilyPolicy: 'Both', ports: [{ port: 80 }] }, 'spec.ipFamilyPolicy: Unsupported value: "Both": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"'],
      ['ipv6', { ipFamilies: ['IPv6'], ports: [{ port: 80 }] }, 'spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster'],
    ];
    for (const [name, spec, message] of refused) {
      const answer = await post('/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });
      expect(answer.code, name).toBe(422);
      expect(answer.body['message'], name).toContain(message);
      const stored = await shared.admin.raw({ method: 'GET', path: `/api/v1/namespaces/default/services/${name}` });
      expect(stored.statusCode, name).toBe(404);
    }
    // A zero targetPort is the port (upstream's defaulting); a named one is kept.
    const named = await post('/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'named-target' },
      spec: { sessionAffinity: 'ClientIP', ports: [{ name: 'a', port: 80, targetPort: 0 }, { name: 'b', port: 81, targetPort: 'http-alt' }] },
    });
    expect(named.code).toBe(201);
    expect(named.body['spec']).toMatchObject({
      ports: [{ port: 80, targetPort: 80 }, { port: 81, targetPort: 'http-alt' }],
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
    });

    const badType = await post('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'bad' },
      addressType: 'IPv5',
      endpoints: [],
    });
    expect(badType.code).toBe(422);
    expect(badType.body['message']).toBe(
      'EndpointSlice.discovery.k8s.io "bad" is invalid: addressType: Unsupported value: "IPv5": supported values: "IPv4", "IPv6", "FQDN"',
    );
    const slices: Array<[string, Record<string, unknown>, string]> = [
      ['not-ip', { addressType: 'IPv4', endpoints: [{ addresses: ['not-an-ip'] }] }, 'endpoints[0].addresses[0]: Invalid value: "not-an-ip": must be a valid IPv4 address'],
      ['v6-in-v4', { addressType: 'IPv4', endpoints: [{ addresses: ['fd00::1'] }] }, 'endpoints[0].addresses[0]: Invalid value: "fd00::1": must be a valid IPv4 address'],
      ['no-address', { addressType: 'IPv4', endpoints: [{ addresses: [] }] }, 'endpoints[0].addresses: Required value: must contain at least 1 address'],
      ['fqdn', { addressType: 'FQDN', endpoints: [{ addresses: ['localhost'] }] }, 'endpoints[0].addresses[0]: Invalid value: "localhost": should be a domain with at least two segments separated by dots'],
      ['hostname', { addressType: 'IPv4', endpoints: [{ addresses: ['10.1.2.3'], hostname: 'Not_A_Label' }] }, 'endpoints[0].hostname: Invalid value: "Not_A_Label": a lowercase RFC 1123 label must consist of'],
      ['port-names', { addressType: 'IPv4', endpoints: [], ports: [{ name: 'a', port: 1 }, { name: 'a', port: 2, protocol: 'ICMP' }] }, 'ports[1].name: Duplicate value: "a", ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"'],
      ['zone-hints', { addressType: 'IPv4', endpoints: [{ addresses: ['10.1.2.3'], hints: { forZones: [{ name: 'a' }, { name: 'a' }, { name: 'no way' }] } }] }, 'endpoints[0].hints.forZones[1].name: Duplicate value: "a", endpoints[0].hints.forZones[2].name: Invalid value: "no way": a valid label must be'],
      ['many-hints', { addressType: 'IPv4', endpoints: [{ addresses: ['10.1.2.3'], hints: { forZones: Array.from({ length: 9 }, (_, i) => ({ name: `z${i}` })) } }] }, 'endpoints[0].hints.forZones: Too many: 9: must have at most 8 items'],
    ];
    for (const [name, body, message] of slices) {
      const answer = await post('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name },
        ...body,
      });
      expect(answer.code, name).toBe(422);
      expect(answer.body['message'], name).toContain(message);
    }
    // The address type may not change.
    const slicePath = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
    // A hint of the wrong type does not decode (400, as upstream); well-formed topology hints are kept.
    const typed = await post(slicePath, {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'typed-hints' },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.1.2.3'], hints: { forZones: 'zone-a' } }],
    });
    expect(typed.code).toBe(400);
    expect(typed.body['message']).toContain('hints.forZones');
    const hinted = await post(slicePath, {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'hinted' },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.1.2.3'], zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }], forNodes: [{ name: 'node-1' }] } }],
    });
    expect(hinted.code).toBe(201);
    expect(hinted.body['endpoints']).toEqual([
      { addresses: ['10.1.2.3'], zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }], forNodes: [{ name: 'node-1' }] } },
    ]);
    const v4 = await post(slicePath, { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'v4' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.1.2.3'] }] });
    expect(v4.code).toBe(201);
    const changed = await shared.admin.raw({
      method: 'PUT',
      path: `${slicePath}/v4`,
      body: { ...v4.body, addressType: 'IPv6', endpoints: [{ addresses: ['fd00::1'] }] },
    });
    expect(changed.statusCode).toBe(422);
    expect(changed.body.toString()).toContain('addressType: Invalid value: \\"IPv6\\": field is immutable');

    expect(
      (await shared.admin.raw({ method: 'GET', path: '/api/v1/namespaces/default/services/empty' }))
        .statusCode,
    ).toBe(404);
    expect(
      (
        await shared.admin.raw({
          method: 'GET',
          path: '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/bad',
        })
      ).statusCode,
    ).toBe(404);
  });

  it('serves the deprecated v1 Endpoints: kubectl lists them with upstream columns and Warning, bad input is refused', async () => {
    const endpoints = `apiVersion: v1
kind: Endpoints
metadata: { name: many }
subsets:
- addresses: [{ ip: 10.1.0.1 }, { ip: 10.1.0.2 }, { ip: 10.1.0.3 }]
  ports: [{ name: a, port: 80 }, { name: b, port: 81 }]
`;
    await kubectl(shared.server, ['apply', '-f', '-'], endpoints);
    const rows = (await kubectl(shared.server, ['get', 'endpoints'])).trim().split('\n');
    expect(rows[0]).toMatch(/^NAME\s+ENDPOINTS\s+AGE$/);
    expect(rows).toContainEqual(
      expect.stringMatching(/^many\s+10\.1\.0\.1:80,10\.1\.0\.2:80,10\.1\.0\.3:80 \+ 3 more\.\.\.\s+\d+s$/),
    );
    expect(rows).toContainEqual(expect.stringMatching(/^kubernetes\s+127\.0\.0\.1:\d+\s+/));
    const read = await shared.admin.raw({ method: 'GET', path: '/api/v1/namespaces/default/endpoints/many' });
    expect(read.headers['warning']).toBe(
      '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"',
    );

    const bad = await post('/api/v1/namespaces/default/endpoints', {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'bad' },
      subsets: [{ addresses: [{ ip: 'nope' }], ports: [{ port: 0, protocol: 'XYZ' }] }],
    });
    expect(bad.code).toBe(422);
    expect(bad.body['message']).toBe(
      'Endpoints "bad" is invalid: [subsets[0].addresses[0].ip: Invalid value: "nope": must be a valid IP address, subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, subsets[0].ports[0].protocol: Unsupported value: "XYZ": supported values: "TCP", "UDP", "SCTP"]',
    );
    expect(
      (await shared.admin.raw({ method: 'GET', path: '/api/v1/namespaces/default/endpoints/bad' }))
        .statusCode,
    ).toBe(404);
  });
});

const servicesPath = '/api/v1/namespaces/default/services';
const service = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });

describe('Service node ports and failed creates', () => {
  it('gives back the node ports of creates that lost a race for the same name at once', async () => {
    // Ten creates of one name, each naming its own node port, each on a connection of its own (as ten
    // clients would send them): one is stored; the others fail with 409 after admission may have
    // allocated their ports, which must be free again when they answer.
    // From the range's static band (its first 43 ports), which dynamic allocation leaves alone.
    const ports = Array.from({ length: 10 }, (_, i) => 30010 + i);
    const answers = await Promise.all(
      ports.map((nodePort) => postOnOwnConnection(service('same', { type: 'NodePort', ports: [{ port: 80, nodePort }] }))),
    );
    expect(answers.filter((answer) => answer.code === 201)).toHaveLength(1);
    expect(answers.filter((answer) => answer.code === 409)).toHaveLength(9);
    const kept = answers.find((answer) => answer.code === 201)?.body.spec?.ports?.[0]?.nodePort;
    for (const nodePort of ports.filter((port) => port !== kept)) {
      const again = await post(servicesPath, service(`p${nodePort}`, { type: 'NodePort', ports: [{ port: 80, nodePort }] }));
      expect(again.code, `${nodePort}: ${JSON.stringify(again.body)}`).toBe(201);
    }
    const taken = await post(servicesPath, service('taken', { type: 'NodePort', ports: [{ port: 80, nodePort: kept }] }));
    expect(taken.code).toBe(422);
  });
});

/** A POST of a Service to `default` over a new HTTP/1.1 connection with the admin's certificate. */
function postOnOwnConnection(body: unknown): Promise<{ code: number; body: { spec?: { ports?: Array<{ nodePort?: number }> } } }> {
  const file = (name: string) => readFileSync(join(shared.server.dataDir, name));
  return new Promise((resolve, reject) => {
    const request = https.request(
      new URL(servicesPath, shared.server.url),
      {
        method: 'POST',
        agent: false,
        ca: file('ca.crt'),
        cert: file('admin.crt'),
        key: file('admin.key'),
        headers: { 'content-type': 'application/json' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ code: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) as { spec?: { ports?: Array<{ nodePort?: number }> } } }),
        );
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}
