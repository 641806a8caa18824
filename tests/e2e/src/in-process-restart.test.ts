import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { RestClient } from '@kapi/client';
import { parseOptions, startControlPlane } from '@kapi/kube-apiserver-lite';
import { afterAll, describe, expect, it } from 'vitest';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const directory = mkdtempSync(join(tmpdir(), 'kapi-in-process-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/**
 * Starts kube-apiserver-lite in this process, serves a LIST, a watch event and a /metrics scrape over
 * HTTPS, stops it, and returns weak references to its server and watch caches' owner.
 */
async function runOnce(round: number): Promise<{ server: WeakRef<object>; metrics: WeakRef<object> }> {
  writeFileSync(join(directory, 'tokens.csv'), 'in-process-token,admin,1,"system:masters"\n');
  // No garbage collector: its informers' watches would count in the exact watch-event count read below.
  const running = await startControlPlane(
    parseOptions([`--data-dir=${directory}`, '--storage=memory', '--secure-port=0', `--token-auth-file=${join(directory, 'tokens.csv')}`, '--enable-garbage-collector=false']),
  );
  const client = new RestClient({ server: running.url, token: 'in-process-token', ca: readFileSync(join(directory, 'ca.crt'), 'utf8') });
  try {
    for (;;) {
      const ready = await client.raw({ method: 'GET', path: '/readyz' }).catch(() => undefined);
      if (ready?.statusCode === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const path = '/api/v1/namespaces/default/configmaps';
    const list = await client.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path });
    const watch = await client.watch({ path, query: { resourceVersion: list.metadata.resourceVersion } });
    await client.request({ method: 'POST', path, body: { metadata: { name: `round-${round}` }, data: { a: 'b' } } });
    for await (const event of watch) {
      expect(event.type).toBe('ADDED');
      break;
    }
    watch.stop();
    const metrics = (await client.raw({ method: 'GET', path: '/metrics', accept: 'text/plain' })).body.toString('utf8');
    expect(metrics).toContain('process_cpu_user_seconds_total');
    expect(metrics).toContain('apiserver_watch_events_total{group="",version="v1",kind="ConfigMap"} 1');
    return { server: new WeakRef(running.server), metrics: new WeakRef(running.server.metrics) };
  } finally {
    client.close();
    await running.stop();
  }
}

describe('kube-apiserver-lite started and stopped in one process', () => {
  it('leaves nothing of a stopped server reachable (its watch caches go with it), and the next one counts afresh', async () => {
    const first = await runOnce(1);
    // The second server's routes are the same built-in route objects the first served its watch on.
    const second = await runOnce(2);
    for (let attempt = 0; attempt < 10 && (first.server.deref() || second.server.deref()); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      gc();
    }
    expect(first.metrics.deref()).toBeUndefined();
    expect(first.server.deref()).toBeUndefined();
    expect(second.server.deref()).toBeUndefined();
  });
});
