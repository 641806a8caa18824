import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in apiserver for migrator-client-bench.ts (run as a child process so that its CPU is not the
 * migrator's): discovery of configmaps, one StorageVersionMigration, metadata-only pages of `total`
 * objects (500 a page) and a canned ~2.3 KB ConfigMap as every PATCH's answer (its PartialObjectMetadata
 * when the Accept asks for it). Reads `{cert, key}`
 * from stdin as JSON, prints its port.
 */
const total = Number(process.argv[2] ?? 10_000);
/** How long each PATCH is answered after (ms): a server as slow as a real one batches fewer answers per read. */
const patchDelayMs = Number(process.argv[3] ?? 0);
const migration = (resourceVersion: string) => ({
  apiVersion: 'storagemigration.k8s.io/v1beta1',
  kind: 'StorageVersionMigration',
  metadata: { name: 'm', uid: 'u', resourceVersion },
  spec: { resource: { group: '', resource: 'configmaps' } },
  status: { resourceVersion: '1000000000', conditions: [{ type: 'Running', status: 'True', reason: 'r', message: 'm', lastUpdateTime: new Date().toISOString() }] },
});
const discovery = JSON.stringify({
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] }],
});
const patchedMetadata = { name: 'o1', namespace: 'bench', uid: '3b4f5d3e-1a2b-4c5d-8e9f-0a1b2c3d4e5f', resourceVersion: '123456', creationTimestamp: '2026-11-29T02:00:00Z', labels: { app: 'bench' } };
const patched = Buffer.from(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: patchedMetadata, data: { payload: 'x'.repeat(2048) } }));
/** The answer to a PATCH that asks for PartialObjectMetadata. */
const patchedPartial = Buffer.from(JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: patchedMetadata }));
function page(from: number): Buffer {
  const items: string[] = [];
  const end = Math.min(total, from + 500);
  for (let index = from; index < end; index++) {
    items.push(
      JSON.stringify({
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: { name: `o${index}`, namespace: 'bench', uid: `3b4f5d3e-1a2b-4c5d-8e9f-${String(index).padStart(12, '0')}`, resourceVersion: String(1000 + index), creationTimestamp: '2026-11-29T02:00:00Z', labels: { app: 'bench' } },
      }),
    );
  }
  const metadata = { resourceVersion: '999999', ...(end < total ? { continue: String(end), remainingItemCount: total - end } : {}) };
  return Buffer.from(`{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":${JSON.stringify(metadata)},"items":[${items.join(',')}]}`);
}

let input = '';
process.stdin.on('data', (chunk: Buffer) => (input += chunk.toString()));
process.stdin.on('end', () => {
  const { cert, key } = JSON.parse(input) as { cert: string; key: string };
  let resourceVersion = 1;
  const server = createSecureServer({ cert, key, allowHTTP1: true }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'https://x');
      response.setHeader('content-type', 'application/json');
      if (url.pathname === '/api/v1') return response.end(discovery);
      if (url.pathname.startsWith('/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations/m')) {
        if (request.method === 'PUT') {
          const body = JSON.parse(Buffer.concat(chunks).toString()) as { metadata: { resourceVersion?: string } };
          body.metadata.resourceVersion = String(++resourceVersion);
          return response.end(JSON.stringify(body));
        }
        return response.end(JSON.stringify(migration(String(resourceVersion))));
      }
      if (request.method === 'GET' && url.pathname === '/api/v1/configmaps') return response.end(page(Number(url.searchParams.get('continue') ?? 0)));
      if (request.method === 'PATCH') {
        const answer = request.headers.accept?.includes('as=PartialObjectMetadata') ? patchedPartial : patched;
        if (patchDelayMs > 0) return void setTimeout(() => response.end(answer), patchDelayMs);
        return response.end(answer);
      }
      response.statusCode = 404;
      response.end('{"kind":"Status","apiVersion":"v1","status":"Failure","code":404}');
    });
  });
  server.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as AddressInfo).port}`));
});
