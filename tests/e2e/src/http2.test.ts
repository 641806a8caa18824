import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadKubeconfig } from '@kapi/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectH2, h2Request, h2Watch } from './h2-client.js';
import { startServer, type TestServer } from './harness.js';

const execFileAsync = promisify(execFile);
const namespace = 'h2';
const maxStreams = 40;
const kubectlCommand = process.env.KUBECTL ?? 'kubectl';

/** Runs kubectl with Go's HTTP/2 debug log on (`GODEBUG=http2debug=N`); resolves with stdout and that log. */
async function kubectlH2(server: TestServer, args: string[], debug = 1): Promise<{ stdout: string; log: string }> {
  const { stdout, stderr } = await execFileAsync(kubectlCommand, ['--kubeconfig', server.kubeconfig, ...args], {
    env: { ...process.env, GODEBUG: `http2debug=${debug}` },
    maxBuffer: 64 << 20,
  });
  return { stdout, log: stderr };
}

/** The server's `apiserver_registered_watchers` gauge for ConfigMaps, from /metrics. */
async function configMapWatchers(server: TestServer): Promise<number> {
  const metrics = (await server.client().raw({ method: 'GET', path: '/metrics' })).body.toString('utf8');
  return Number(/^apiserver_registered_watchers\{group="",version="v1",kind="ConfigMap"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
}

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { a: '1' } });

describe('HTTP/2 on the secure port (ALPN h2 and http/1.1)', () => {
  let server: TestServer;
  let files: string;

  beforeAll(async () => {
    server = await startServer({ args: ['--storage=memory', `--http2-max-streams-per-connection=${maxStreams}`] });
    await server.client().request({ method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: namespace } } });
    files = mkdtempSync(join(tmpdir(), 'kapi-h2-'));
  });

  afterAll(async () => {
    await server?.stop();
    if (files) rmSync(files, { recursive: true, force: true });
  });

  it('kubectl (Go net/http) negotiates h2 for get and apply, and sees the stream limit in SETTINGS', async () => {
    const get = await kubectlH2(server, ['get', 'namespaces', namespace], 2);
    expect(get.stdout).toContain(namespace);
    expect(get.log).toContain('http2: Transport creating client conn');
    expect(get.log).toMatch(new RegExp(`Transport received SETTINGS len=\\d+, settings: MAX_CONCURRENT_STREAMS=${maxStreams}\\b`));
    expect(get.log).toContain('http2: decoded hpack field header field ":status" = "200"');

    const manifest = join(files, 'applied.json');
    writeFileSync(manifest, JSON.stringify(configMap('applied')));
    const apply = await kubectlH2(server, ['apply', '--server-side', '-f', manifest]);
    expect(apply.stdout).toContain('configmap/applied serverside-applied');
    expect(apply.log).toMatch(/http2: Transport encoding header ":method" = "PATCH"/);
    expect(apply.log).toMatch(/http2: Transport received HEADERS flags=END_HEADERS stream=\d+/);
  });

  it('kubectl get --watch streams events over an h2 stream; killing kubectl ends the watch on the server', async () => {
    const child = spawn(kubectlCommand, ['--kubeconfig', server.kubeconfig, 'get', 'configmaps', '-n', namespace, '--watch-only', '--output-watch-events'], {
      env: { ...process.env, GODEBUG: 'http2debug=1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let log = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      // The watch request is on its way once kubectl has encoded it.
      while (!/":path" = "[^"]*watch=true/.test(log)) {
        if (child.exitCode !== null) throw new Error(`kubectl exited: ${log}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await server.client().request({ method: 'POST', path: `/api/v1/namespaces/${namespace}/configmaps`, body: configMap('watched') });
      while (!stdout.includes('watched')) {
        if (child.exitCode !== null) throw new Error(`kubectl exited: ${log}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(stdout).toMatch(/ADDED\s+watched/);
      expect(log).toMatch(/http2: Transport received DATA stream=\d+ len=\d+ data="\{\\"type\\":\\"ADDED\\"/);
      expect(await configMapWatchers(server)).toBe(1);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    // The connection went with kubectl: the server ends that watch at once, not at its timeout.
    let watchers = await configMapWatchers(server);
    for (let attempt = 0; attempt < 100 && watchers !== 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      watchers = await configMapWatchers(server);
    }
    expect(watchers).toBe(0);
  });

  it('multiplexes watches up to the advertised limit on one session; the next stream waits for a free slot', async () => {
    const session = await connectH2(server.kubeconfig);
    try {
      expect(session.alpnProtocol).toBe('h2');
      expect(session.remoteSettings.maxConcurrentStreams).toBe(maxStreams);
      const list = await h2Request(session, `/api/v1/namespaces/${namespace}/configmaps`);
      const resourceVersion = (JSON.parse(list.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      const watches = Array.from({ length: maxStreams }, () =>
        h2Watch(session, `/api/v1/namespaces/${namespace}/configmaps?watch=true&resourceVersion=${resourceVersion}`),
      );
      expect(await Promise.all(watches.map((watch) => watch.status))).toEqual(watches.map(() => 200));

      // The limit is full: the client holds one more request until a stream closes.
      let answered = false;
      const extra = h2Request(session, '/version').then((result) => {
        answered = true;
        return result;
      });
      await server.client().request({ method: 'POST', path: `/api/v1/namespaces/${namespace}/configmaps`, body: configMap('fanned-out') });
      const events = await Promise.all(watches.map((watch) => watch.next((line) => line.object.metadata?.name === 'fanned-out')));
      expect(events.map((event) => event.type)).toEqual(watches.map(() => 'ADDED'));
      expect(answered).toBe(false);
      watches[0]?.stream.close();
      expect((await extra).status).toBe(200);
      for (const watch of watches) watch.stream.close();
    } finally {
      session.close();
    }
  });

  it('still serves HTTP/1.1 clients (curl --http1.1) beside h2 ones (curl --http2)', async () => {
    const config = loadKubeconfig(server.kubeconfig);
    writeFileSync(join(files, 'ca.pem'), config.ca ?? '');
    writeFileSync(join(files, 'cert.pem'), config.cert ?? '');
    writeFileSync(join(files, 'key.pem'), config.key ?? '');
    const curl = async (version: string) =>
      (
        await execFileAsync('curl', [
          '-sS', '-i', version,
          '--cacert', join(files, 'ca.pem'), '--cert', join(files, 'cert.pem'), '--key', join(files, 'key.pem'),
          `${server.url}/api/v1/namespaces/${namespace}`,
        ])
      ).stdout;
    const h1 = await curl('--http1.1');
    expect(h1).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(h1).toMatch(/\r\nconnection: keep-alive\r\n/i);
    expect(h1).toMatch(new RegExp(`"name": ?"${namespace}"`));
    const h2 = await curl('--http2');
    expect(h2).toMatch(/^HTTP\/2 200 \r\n/);
    expect(h2).not.toMatch(/\r\n(connection|keep-alive|transfer-encoding):/i);
    expect(h2).toMatch(new RegExp(`"name": ?"${namespace}"`));
  });

  it('holds a watcher that stops reading by flow control, without stalling its session, and loses nothing', async () => {
    const session = await connectH2(server.kubeconfig);
    try {
      // A connection window far larger than a stream's (as Go's transport has): one stalled stream cannot block the rest.
      session.setLocalWindowSize(16 << 20);
      const list = await h2Request(session, `/api/v1/namespaces/${namespace}/configmaps`);
      const resourceVersion = (JSON.parse(list.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      const watch = h2Watch(session, `/api/v1/namespaces/${namespace}/configmaps?watch=true&resourceVersion=${resourceVersion}`);
      expect(await watch.status).toBe(200);
      watch.stream.pause();
      const names = Array.from({ length: 60 }, (_, index) => `stalled-${index}`);
      const writer = server.client();
      for (const name of names) {
        await writer.request({ method: 'POST', path: `/api/v1/namespaces/${namespace}/configmaps`, body: { ...configMap(name), data: { a: 'x'.repeat(8192) } } });
      }
      // ~500 KB of events wait behind the stream's 64 KiB window; the session still serves other streams.
      expect(watch.lines.length).toBeLessThan(names.length);
      expect((await h2Request(session, `/api/v1/namespaces/${namespace}/configmaps/stalled-0`)).status).toBe(200);
      watch.stream.resume();
      await watch.next((line) => line.object.metadata?.name === names[names.length - 1]);
      expect(watch.lines.map((line) => `${line.type} ${line.object.metadata?.name ?? ''}`)).toEqual(names.map((name) => `ADDED ${name}`));
      watch.stream.close();
    } finally {
      session.close();
    }
  });

  // Last: it stops the server.
  it('on SIGTERM sends GOAWAY; an open watch gets its final BOOKMARK, then the stream and the session end', async () => {
    const session = await connectH2(server.kubeconfig);
    const goAway = new Promise<number>((resolve) => session.once('goaway', (code: number) => resolve(code)));
    const closed = new Promise<void>((resolve) => session.once('close', () => resolve()));
    const created = await h2Request(session, `/api/v1/namespaces/${namespace}/configmaps`, { method: 'POST', body: configMap('last') });
    const lastRV = (JSON.parse(created.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const watch = h2Watch(session, `/api/v1/namespaces/${namespace}/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=${lastRV}`);
    expect(await watch.status).toBe(200);
    server.process.kill('SIGTERM');
    expect(await goAway).toBe(0); // NGHTTP2_NO_ERROR: a graceful GOAWAY.
    const bookmark = await watch.next((line) => line.type === 'BOOKMARK');
    expect(Number(bookmark.object.metadata?.resourceVersion)).toBeGreaterThanOrEqual(Number(lastRV));
    await watch.ended;
    expect(watch.stream.rstCode).toBe(0);
    await closed;
  });
});
