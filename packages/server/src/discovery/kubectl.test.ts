import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import type { GroupVersionKind } from '@kapi/apimachinery';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthRegistry } from '../health/health-registry.js';
import { writeKubeconfig } from '../kubeconfig.js';
import { ServerMetrics } from '../metrics/server-metrics.js';
import type { JSONSchema } from '../openapi/meta-definitions.js';
import { createOpenAPIHandler } from '../openapi/openapi-handler.js';
import { sampleScheme } from '../openapi/test-scheme.js';
import { ensureCertificates, issueClientCertificate } from '../tls/certificates.js';
import { createVersionHandler } from '../version.js';
import { createDiscoveryHandler } from './discovery-handler.js';
import { sampleResources } from './test-resources.js';

const kubectlPath = '/usr/bin/kubectl';
const run = promisify(execFile);

/** Real kubectl against an HTTPS server assembled from the platform pieces, authenticated by the issued admin certificate. */
// Skipped where kubectl is missing, except in CI (CI=true), where a missing kubectl must fail the run.
describe.runIf(existsSync(kubectlPath) || process.env['CI'] === 'true')('kubectl against the platform endpoints', () => {
  let dir: string;
  let server: Server;
  const clients: string[] = [];
  const paths: string[] = [];
  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await run(kubectlPath, ['--kubeconfig', join(dir, 'admin.kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args], {
      timeout: 20_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
    });
    return stdout;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kapi-kubectl-'));
    const certificates = ensureCertificates(join(dir, 'pki'), { hosts: ['127.0.0.1', 'localhost'] });
    const admin = issueClientCertificate(certificates.ca, { commonName: 'kubernetes-admin', organizations: ['system:masters'] });
    const resources = sampleResources();
    const scheme = sampleScheme();
    const metrics = new ServerMetrics({ defaultMetrics: false });
    const health = new HealthRegistry({ onResult: (name, type, healthy) => metrics.observeHealthCheck(name, type, healthy) });
    const handlers = [
      createVersionHandler(),
      health.handler(),
      metrics.handler(),
      createDiscoveryHandler({ resources: () => resources }),
      createOpenAPIHandler({ resources: () => resources, schemaFor: (gvk: GroupVersionKind) => scheme.openAPISchema(gvk) as JSONSchema }),
    ];
    server = createServer(
      { cert: certificates.serving.certificatePem, key: certificates.serving.privateKeyPem, ca: certificates.ca.certificatePem, requestCert: true, rejectUnauthorized: false },
      (request, response) => {
        const socket = request.socket as TLSSocket;
        if (!socket.authorized) {
          response.writeHead(401, { 'Content-Type': 'application/json' });
          response.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }));
          return;
        }
        const subject = socket.getPeerCertificate().subject;
        clients.push(`${String(subject.CN)}/${String(subject.O)}`);
        paths.push(`${(request.url ?? '').split('?')[0]} ${request.headers.accept ?? ''}`);
        const started = performance.now();
        response.on('finish', () =>
          metrics.observeRequest({ verb: request.method === 'GET' ? 'get' : String(request.method), code: response.statusCode, durationSeconds: (performance.now() - started) / 1000 }),
        );
        if (!handlers.some((handler) => handler(request, response))) {
          response.writeHead(404, { 'Content-Type': 'text/plain' });
          response.end('404 page not found\n');
        }
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    writeKubeconfig(join(dir, 'admin.kubeconfig'), {
      server: `https://127.0.0.1:${port}`,
      caData: certificates.ca.certificatePem,
      user: { clientCertificateData: admin.certificatePem, clientKeyData: admin.privateKeyPem },
      contextName: 'kapi',
    });
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the server version over TLS with the admin client certificate', async () => {
    const output = JSON.parse(await kubectl('version', '--output=json')) as { serverVersion: Record<string, string> };
    expect(output.serverVersion).toMatchObject({ major: '1', minor: '34+', gitVersion: 'v1.34.0-kapi' });
    expect(clients).toContain('kubernetes-admin/system:masters');
  });

  it('lists api-resources from aggregated discovery', async () => {
    const rows = (await kubectl('api-resources', '--no-headers')).trim().split('\n').map((line) => line.trim().split(/\s+/));
    expect(rows).toContainEqual(['configmaps', 'cm', 'v1', 'true', 'ConfigMap']);
    expect(rows).toContainEqual(['namespaces', 'ns', 'v1', 'false', 'Namespace']);
    expect(rows).toContainEqual(['deployments', 'deploy', 'apps/v1', 'true', 'Deployment']);
    expect(rows).toContainEqual(['widgets', 'wd', 'example.com/v1', 'true', 'Widget']);
    expect(rows).toContainEqual(['gadgets', 'example.com/v1', 'false', 'Gadget']);
    // Aggregated discovery was negotiated: no per-group-version legacy fetches.
    expect(paths.some((entry) => entry.startsWith('/apis application/json;g=apidiscovery.k8s.io;v=v2'))).toBe(true);
    expect(paths.filter((entry) => entry.startsWith('/apis/'))).toEqual([]);
    const wide = await kubectl('api-resources', '--api-group=apps', '-o', 'wide', '--no-headers');
    expect(wide).toMatch(/deployments\s+deploy\s+apps\/v1\s+true\s+Deployment\s+create,delete,deletecollection,get,list,patch,update,watch\s+all/);
  });

  it('explains a resource and a field from OpenAPI v3', async () => {
    const explained = await kubectl('explain', 'widgets');
    expect(explained).toContain('KIND:       Widget');
    expect(explained).toContain('GROUP:      example.com');
    expect(explained).toContain('VERSION:    v1');
    expect(explained).toContain('Widget is a thing that does stuff.');
    expect(explained).toMatch(/metadata\s+<ObjectMeta>/);
    expect(explained).toMatch(/spec\s+<Object>/);
    const field = await kubectl('explain', 'widgets.spec.replicas');
    expect(field).toContain('Number of desired widget replicas.');
    expect(field).toMatch(/FIELD: replicas <integer>/);
    const meta = await kubectl('explain', 'configmaps.metadata.labels');
    expect(meta).toContain('Map of string keys and values');
  });

  it('finds server-side field validation advertised, so client-side validation needs no OpenAPI v2', async () => {
    const manifest = join(dir, 'widget.yaml');
    writeFileSync(manifest, 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: default\nspec:\n  replicas: 1\n  bogus: true\n');
    const output = JSON.parse(await kubectl('create', '-f', manifest, '--dry-run=client', '--validate=strict', '-o', 'json')) as { metadata: { name: string } };
    expect(output.metadata.name).toBe('w1');
    expect(paths.filter((entry) => entry.startsWith('/openapi/v2'))).toEqual([]);
  });

  it('reads health and metrics through kubectl get --raw', async () => {
    expect(await kubectl('get', '--raw', '/readyz?verbose')).toContain('readyz check passed');
    const text = await kubectl('get', '--raw', '/metrics');
    expect(text).toContain('kapi_health_check{name="shutdown",type="readyz"} 1');
    expect(text).toMatch(/apiserver_request_total\{verb="GET".*code="200"\} \d+/);
  });
});
