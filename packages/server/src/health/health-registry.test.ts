import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../discovery/test-server.js';
import { HealthRegistry, withCheckTimeout } from './health-registry.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(registry: HealthRegistry): Promise<TestServer> {
  server = await startTestServer(registry.handler());
  return server;
}

describe('HealthRegistry over HTTP', () => {
  it('answers ok, and lists checks with ?verbose', async () => {
    const registry = new HealthRegistry();
    registry.addCheck('etcd', () => {});
    const http = await serve(registry);
    const plain = await http.get('/healthz');
    expect(plain.status).toBe(200);
    expect(plain.text).toBe('ok');
    expect(plain.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(plain.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await http.get('/livez?verbose')).text).toBe('[+]ping ok\n[+]log ok\n[+]etcd ok\nlivez check passed\n');
    expect((await http.get('/readyz?verbose=1')).text).toBe(
      '[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]shutdown ok\nreadyz check passed\n',
    );
  });

  it('fails with 500, withholding the reason, always verbose', async () => {
    const registry = new HealthRegistry();
    registry.addCheck('etcd', async () => {
      throw new Error('etcd unreachable');
    });
    const http = await serve(registry);
    const result = await http.get('/healthz');
    expect(result.status).toBe(500);
    expect(result.text).toBe('[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\nhealthz check failed\n');
    const single = await http.get('/healthz/etcd');
    expect(single.status).toBe(500);
    expect(single.text).toBe('internal server error: etcd unreachable\n');
    expect((await http.get('/healthz/ping')).text).toBe('ok');
    expect((await http.get('/healthz/nope')).status).toBe(404);
  });

  it('excludes checks, and warns about unknown exclusions', async () => {
    const registry = new HealthRegistry();
    registry.addCheck('bad', () => {
      throw new Error('this will fail');
    });
    const http = await serve(registry);
    const excluded = await http.get('/healthz?exclude=bad');
    expect(excluded.status).toBe(200);
    expect(excluded.text).toBe('ok');
    expect((await http.get('/healthz?verbose=true&exclude=bad')).text).toBe(
      '[+]ping ok\n[+]log ok\n[+]bad excluded: ok\nhealthz check passed\n',
    );
    expect((await http.get('/livez?verbose&exclude=bad&exclude=zz&exclude=dontexist')).text).toBe(
      '[+]ping ok\n[+]log ok\n[+]bad excluded: ok\nwarn: some health checks cannot be excluded: no matches for "dontexist", "zz"\nlivez check passed\n',
    );
  });

  it('limits checks to chosen endpoints', async () => {
    const registry = new HealthRegistry();
    registry.addCheck('informer-sync', () => {
      throw new Error('not synced');
    }, { healthz: false, livez: false });
    const http = await serve(registry);
    expect((await http.get('/livez')).status).toBe(200);
    expect((await http.get('/healthz')).status).toBe(200);
    expect((await http.get('/readyz')).status).toBe(500);
    expect((await http.get('/livez/informer-sync')).status).toBe(404);
    expect(registry.checkNames('readyz')).toEqual(['ping', 'log', 'informer-sync', 'shutdown']);
  });

  it('reports post-start hooks as not finished until they resolve', async () => {
    const registry = new HealthRegistry();
    let release!: () => void;
    registry.addPostStartHook('start-informers', () => new Promise<void>((resolve) => (release = resolve)));
    const http = await serve(registry);
    const running = registry.runPostStartHooks({ signal: new AbortController().signal });
    const before = await http.get('/readyz');
    expect(before.status).toBe(500);
    expect(before.text).toContain('[-]poststarthook/start-informers failed: reason withheld\n');
    expect((await http.get('/livez/poststarthook/start-informers')).text).toBe('internal server error: not finished\n');
    release();
    await running;
    expect((await http.get('/readyz')).text).toBe('ok');
    expect((await http.get('/healthz/poststarthook/start-informers')).text).toBe('ok');
    expect(() => registry.addPostStartHook('late', async () => {})).toThrow(/already been executed/);
  });

  it('rejects when a hook fails and keeps its check failing', async () => {
    const registry = new HealthRegistry();
    registry.addPostStartHook('broken', async () => {
      throw new Error('boom');
    });
    await expect(registry.runPostStartHooks({ signal: new AbortController().signal })).rejects.toThrow(
      'PostStartHook "broken" failed: boom',
    );
    const results = await registry.run('healthz');
    expect(results.find((result) => result.name === 'poststarthook/broken')).toMatchObject({ healthy: false, error: 'not finished' });
  });

  it('fails readyz only once shutting down', async () => {
    const registry = new HealthRegistry();
    const http = await serve(registry);
    registry.setShuttingDown();
    const ready = await http.get('/readyz?verbose');
    expect(ready.status).toBe(500);
    expect(ready.text).toBe('[+]ping ok\n[+]log ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n');
    expect((await http.get('/readyz/shutdown')).text).toBe('internal server error: process is shutting down\n');
    expect((await http.get('/livez')).status).toBe(200);
  });

  it('refuses duplicate names and reports results to an observer', async () => {
    const seen: string[] = [];
    const registry = new HealthRegistry({ onResult: (name, endpoint, healthy) => seen.push(`${endpoint}:${name}:${healthy}`) });
    registry.addCheck('etcd', () => {});
    expect(() => registry.addCheck('etcd', () => {})).toThrow(/already registered/);
    expect(() => registry.addPostStartHook('x', async () => {})).not.toThrow();
    expect(() => registry.addPostStartHook('x', async () => {})).toThrow(/already registered/);
    await registry.run('livez', ['log']);
    expect(seen.sort()).toEqual(['livez:etcd:true', 'livez:ping:true', 'livez:poststarthook/x:false']);
  });
});

describe('withCheckTimeout', () => {
  it('fails a check that does not settle in time, and passes results through', async () => {
    const registry = new HealthRegistry();
    registry.addCheck('etcd', withCheckTimeout('etcd', () => new Promise<void>(() => {}), 20));
    registry.addCheck('etcd-readiness', withCheckTimeout('etcd-readiness', () => {
      throw new Error('not ready');
    }, 1000), { healthz: false, livez: false });
    registry.addCheck('fast', withCheckTimeout('fast', async () => {}, 1000));
    const results = await registry.run('readyz');
    expect(results.filter((result) => !result.healthy).map((result) => [result.name, result.error])).toEqual([
      ['etcd', 'etcd check timed out after 20ms'],
      ['etcd-readiness', 'not ready'],
    ]);
  });
});
