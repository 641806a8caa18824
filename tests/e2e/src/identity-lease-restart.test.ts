import { rmSync } from 'node:fs';
import { ResourceClient, sleep, type Lease } from '@kapi/client';
import { apiserverIdentity } from '@kapi/identity';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './harness.js';

const leaseRef = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true };
const hostname = 'restarted-host';
const args = [`--hostname-override=${hostname}`, '--storage=sqlite', '--identity-lease-renew-interval-seconds=1'];

/** The holder of this server's identity lease once it differs from `previous` (undefined after 15 s). */
async function holderOf(server: TestServer, previous?: string): Promise<string | undefined> {
  const leases = new ResourceClient<Lease>(server.client(), leaseRef);
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(100)) {
    const lease = await leases.get('kube-system', apiserverIdentity(hostname)).catch(() => undefined);
    const holder = lease?.spec?.holderIdentity;
    if (holder && holder !== previous) return holder;
  }
  return undefined;
}

describe('the identity lease across a restart (KEP-1965)', () => {
  let server: TestServer | undefined;
  let dataDir: string | undefined;

  afterAll(async () => {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('is held as <id>_<new uuid> by each start of the same server', async () => {
    server = await startServer({ args, keepDataDir: true });
    dataDir = server.dataDir;
    const first = await holderOf(server);
    await server.stop();

    server = await startServer({ args, dataDir });
    const second = await holderOf(server, first);

    const identity = apiserverIdentity(hostname);
    const format = new RegExp(`^${identity}_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`);
    expect(first).toMatch(format);
    expect(second).toMatch(format);
    expect(second).not.toBe(first);
  });
});
