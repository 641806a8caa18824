import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEtcd } from '@kapi/storage-etcd3/testing';
import { freePort, startServer, type TestServer } from './harness.js';
import { bindClusterRole, rbacGroup, rbacPath } from './rbac-session.js';

type Etcd = Awaited<ReturnType<typeof startEtcd>>;
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const HPA = '[data-resource="autoscaling.horizontalpodautoscalers"]';
/** Screenshots go under the repository's (ignored) .tmp folder. */
const outputDir = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../.tmp/test-output/console');

let etcd: Etcd;
let browser: Browser;
const servers: TestServer[] = [];
const ports: number[] = [];
const tokens = join(mkdtempSync(join(tmpdir(), 'kapi-console-')), 'tokens.csv');
writeFileSync(tokens, 'admin-token,console-admin,3001,system:masters\nviewer-token,viewer,3002\n');

const args = (replica: number, hpaVersion: string) => [
  '--storage=etcd',
  `--etcd-servers=${etcd.endpoint}`,
  `--hostname-override=console-${replica + 1}`,
  `--token-auth-file=${tokens}`,
  `--storage-version=autoscaling/horizontalpodautoscalers=${hpaVersion}`,
  '--identity-lease-duration-seconds=30',
  '--identity-lease-renew-interval-seconds=1',
];

async function restart(replica: number, hpaVersion: string): Promise<void> {
  const old = servers[replica] as TestServer;
  await old.stop();
  servers[replica] = await startServer({ port: ports[replica] as number, args: args(replica, hpaVersion), dataDir: old.dataDir, keepDataDir: true });
}

async function openConsole(token: string): Promise<Page> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, extraHTTPHeaders: { Authorization: `Bearer ${token}` } });
  const page = await context.newPage();
  const response = await page.goto(`${(servers[0] as TestServer).url}/console/`);
  expect(response?.status()).toBe(200);
  return page;
}

/** The watch cache row shows a history window ending at its RV, its watchers and its bookmark lag behind storage. */
async function expectCacheHealth(page: Page, row: string): Promise<void> {
  await page.waitForSelector(`${row} [data-bookmark-lag]`, { timeout: 10_000 });
  await expect.poll(() => page.locator(`${row} [data-cache-watchers]`).getAttribute('data-cache-watchers'), { timeout: 10_000 }).toMatch(/^[1-9]/);
  // Read the window before the RV: the page re-renders every second and the RV only grows.
  const attribute = async (selector: string, name: string) => Number(await page.locator(`${row} ${selector}`).getAttribute(name));
  const text = async (selector: string) => (await page.locator(`${row} ${selector}`).textContent()) ?? '';
  const health = {
    oldest: await attribute('[data-history-oldest]', 'data-history-oldest'),
    events: await attribute('[data-history-oldest]', 'data-history-events'),
    window: await text('[data-history-oldest]'),
    lag: await attribute('[data-bookmark-lag]', 'data-bookmark-lag'),
    lagText: await text('[data-bookmark-lag]'),
    watchers: await attribute('[data-cache-watchers]', 'data-cache-watchers'),
    rv: Number(await text('td:nth-child(2)')),
  };
  expect(health.oldest).toBeGreaterThan(0);
  expect(health.oldest).toBeLessThanOrEqual(health.rv);
  expect(health.events).toBeGreaterThan(0); // the identity leases renew every second
  expect(health.window).toMatch(/^from RV \d+ · \d+\/\d+ events · \d+[smh]$/);
  expect(health.lag).toBeGreaterThanOrEqual(0);
  expect(health.lagText).toMatch(/^\d+ RV behind storage · (no bookmark sent yet|last bookmark \d+[smh] ago)$/);
  expect(health.watchers).toBeGreaterThanOrEqual(1); // at least the page's own watch of leases
}

beforeAll(async () => {
  mkdirSync(outputDir, { recursive: true });
  etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
  for (let replica = 0; replica < 2; replica++) {
    ports.push(await freePort());
    servers.push(await startServer({ port: ports[replica] as number, args: args(replica, 'autoscaling/v1'), keepDataDir: true }));
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const server of servers) await server.stop().catch(() => undefined);
  await etcd?.stop();
});

describe('the storage-version console at /console/', () => {
  it('is served behind authentication and authorization, and off with --console=false', async () => {
    const url = `${(servers[0] as TestServer).url}/console/`;
    const get = async (target: string, token?: string) => {
      const context = await browser.newContext({ ignoreHTTPSErrors: true, ...(token ? { extraHTTPHeaders: { Authorization: `Bearer ${token}` } } : {}) });
      const response = await context.request.get(target, { maxRedirects: 0 });
      const result = { status: response.status(), body: await response.text(), type: response.headers()['content-type'] };
      await context.close();
      return result;
    };
    const anonymous = await get(url);
    expect(anonymous.status).toBe(403);
    expect(JSON.parse(anonymous.body)).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(anonymous.body).toContain('User \\"system:anonymous\\" cannot get path \\"/console/\\"');
    expect((await get(url, 'wrong-token')).status).toBe(401);
    const admin = await get(url, 'admin-token');
    expect(admin.status).toBe(200);
    expect(admin.type).toBe('text/html; charset=utf-8');
    expect(admin.body).not.toMatch(/https?:\/\/(?!www\.w3\.org)/); // nothing from the internet
    expect((await get(`${url}console.js`, 'admin-token')).type).toBe('text/javascript; charset=utf-8');
    expect((await get(url.slice(0, -1), 'admin-token')).status).toBe(302);

    const off = await startServer({ args: ['--storage=memory', '--console=false', `--token-auth-file=${tokens}`] });
    try {
      const response = await get(`${off.url}/console/`, 'admin-token');
      expect(response.status).toBe(404);
      expect(JSON.parse(response.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    } finally {
      await off.stop();
    }
  });

  it("shows what the viewer's own permissions allow", async () => {
    const admin = (servers[0] as TestServer).client();
    await admin.request({
      method: 'POST',
      path: `${rbacPath}/clusterroles`,
      body: { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRole', metadata: { name: 'console-page' }, rules: [{ nonResourceURLs: ['/console', '/console/*'], verbs: ['get'] }] },
    });
    await bindClusterRole(admin, 'console-page-viewer', 'console-page', { kind: 'User', name: 'viewer' });
    const page = await openConsole('viewer-token');
    await page.waitForSelector('#servers [data-state="forbidden"]');
    await page.waitForSelector('#storageversions [data-state="forbidden"]');
    await page.waitForSelector('#caches [data-state="forbidden"]');
    expect(await page.locator(HPA).count()).toBe(0);
    await page.context().close();
  });

  it('shows the servers, and a rolling storage-version upgrade of two replicas: disagreement appears, then clears', async () => {
    const page = await openConsole('admin-token');
    await page.waitForSelector('#servers [data-server]');
    await expect.poll(() => page.locator('#servers [data-server]').count(), { timeout: 15_000 }).toBe(2);
    await page.waitForSelector('#servers [data-gc-leader]', { timeout: 30_000 });
    await page.waitForSelector(`${HPA}[data-agreement="agree"]`);
    await expect.poll(() => page.locator(`${HPA} [data-entry]`).count(), { timeout: 15_000 }).toBe(2);
    expect(await page.locator(`${HPA} [data-common]`).textContent()).toBe('autoscaling/v1');
    await page.waitForSelector('#caches [data-cache="leases.coordination.k8s.io"]');
    await page.waitForSelector('#caches [data-watchers="Lease"]', { timeout: 10_000 }); // the page's own watch of leases
    await expectCacheHealth(page, '#caches [data-cache="leases.coordination.k8s.io"]');

    // Step 1: replica 2 now stores HPAs as autoscaling/v2; replica 1 (serving this page) still as v1.
    await restart(1, 'autoscaling/v2');
    await page.waitForSelector(`${HPA}[data-agreement="disagree"]`, { timeout: 30_000 });
    expect(await page.locator(`${HPA} [data-common]`).textContent()).toBe('—');
    await page.screenshot({ path: join(outputDir, 'disagreement.png'), fullPage: true });

    // Step 2: replica 1 follows; the page reconnects to its restarted server and the disagreement clears.
    await restart(0, 'autoscaling/v2');
    await page.waitForSelector(`${HPA}[data-agreement="agree"]`, { timeout: 30_000 });
    await expect.poll(() => page.locator(`${HPA} [data-common]`).textContent(), { timeout: 30_000 }).toBe('autoscaling/v2');
    await page.screenshot({ path: join(outputDir, 'agreement.png'), fullPage: true });
    await page.context().close();
  });
});
