import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '@kapi/apimachinery';
import { SqliteBackend } from '@kapi/storage-sqlite';
import { measureRate, sampleObject } from './harness.js';
import { benchToken, startServer } from './http-bench.js';

/** The built server, as `npm start` runs it (`node dist/main.js`): a cold start measured under tsx would time the compiler. */
const serverMain = fileURLToPath(new URL('../../apps/kube-apiserver-lite/dist/main.js', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The namespace and name of object `i` of the scale point. */
export function scaleObject(i: number, namespaces: number): { namespace: string; name: string } {
  return { namespace: `ns-${i % namespaces}`, name: `o${String(i).padStart(6, '0')}` };
}

/** What {@link seedScaleDirectories} made. */
export interface ScaleSeed {
  /** Data dir holding the namespaces and `count` ConfigMaps. */
  subject: string;
  /** Data dir of the same server bootstrapped with the namespaces only. */
  control: string;
  /** Sum of the stored JSON of the ConfigMaps. */
  storedBytes: number;
  /** Raw creates per second while seeding. */
  seedRate: number;
}

/**
 * Seeds the scale point: a kube-apiserver-lite on SQLite bootstraps `directory/subject` and gets the
 * namespaces and object 0 over HTTP; its data dir is copied as the control; then the other `count - 1`
 * ConfigMaps are written straight into the subject's kapi.db (raw KV creates, 256 in flight, each the
 * stored JSON of object 0 with its name, namespace and uid changed), not through the API.
 */
export async function seedScaleDirectories(directory: string, count: number, namespaces: number): Promise<ScaleSeed> {
  const subject = join(directory, 'subject');
  const control = join(directory, 'control');
  mkdirSync(subject, { recursive: true });
  const server = await startServer(subject, ['--storage=sqlite']);
  try {
    for (let i = 0; i < namespaces; i++) {
      await server.client.request({ method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns-${i}` } } });
    }
    const { namespace, name } = scaleObject(0, namespaces);
    await server.client.request({ method: 'POST', path: `/api/v1/namespaces/${namespace}/configmaps`, body: { ...sampleObject(name), metadata: { name } } });
  } finally {
    server.client.close();
    await server.running.stop();
  }
  cpSync(subject, control, { recursive: true });
  const kv = await SqliteBackend.open({ path: join(subject, 'kapi.db') });
  try {
    const first = scaleObject(0, namespaces);
    const stored = await kv.get(`/registry/configmaps/${first.namespace}/${first.name}`);
    if (!stored.entry) throw new Error('the seed object was not stored under /registry/configmaps/<namespace>/<name>');
    const template = JSON.parse(Buffer.from(stored.entry.value).toString('utf8')) as KubeObject;
    let storedBytes = stored.entry.value.byteLength;
    const seedRate = await measureRate(count - 1, 256, async (index) => {
      const { namespace, name } = scaleObject(index + 1, namespaces);
      const value = Buffer.from(JSON.stringify({ ...template, metadata: { ...template.metadata, name, namespace, uid: randomUUID() } }));
      storedBytes += value.byteLength;
      await kv.create(`/registry/configmaps/${namespace}/${name}`, value);
    });
    return { subject, control, storedBytes, seedRate };
  } finally {
    await kv.close();
  }
}

/** Compacts the subject's log to its current revision (what the server's 5-minute compactor does). */
export async function compactScaleDirectory(dataDir: string): Promise<void> {
  const kv = await SqliteBackend.open({ path: join(dataDir, 'kapi.db') });
  try {
    await kv.compact(await kv.currentRevision());
  } finally {
    await kv.close();
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no free port');
  return address.port;
}

function readyz(port: number, ca: string): Promise<number> {
  return new Promise((resolve) => {
    const call = request(
      { host: '127.0.0.1', port, path: '/readyz', ca, agent: new Agent({ ca, keepAlive: false }), headers: { authorization: `Bearer ${benchToken}` } },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    call.on('error', () => resolve(0));
    call.end();
  });
}

/** The resident set of a process (VmRSS), in bytes. */
function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

/** CPU time (user + system, every thread) a process has used so far, in ms (`/proc/<pid>/stat`, 100 ticks/s). */
function cpuTimeMs(pid: number): number {
  // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** What {@link coldStart} measured. */
export interface ColdStart {
  /** Spawn to `/readyz` 200, wall time. */
  readyMs: number;
  /** CPU time of the server process (main thread and workers) from spawn to ready. */
  cpuMs: number;
  /** Resident set at ready. */
  rss: number;
}

/**
 * Starts the built kube-apiserver-lite in a child process on `dataDir` and measures the time from
 * spawning it to `/readyz` 200 (every watch cache filled), its CPU time and its RSS then; stops it with
 * SIGTERM. With `KAPI_BENCH_PROFILE` naming a directory, the server writes CPU profiles of its threads
 * there (`--cpu-prof`; they cover its shutdown too).
 */
export async function coldStart(dataDir: string, timeoutMs: number): Promise<ColdStart> {
  const profileDirectory = process.env.KAPI_BENCH_PROFILE;
  const nodeArgs = profileDirectory ? ['--cpu-prof', `--cpu-prof-dir=${profileDirectory}`] : [];
  const port = await freePort();
  const ca = readFileSync(join(dataDir, 'ca.crt'), 'utf8');
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...nodeArgs, serverMain, `--data-dir=${dataDir}`, `--secure-port=${port}`, `--token-auth-file=${join(dataDir, 'tokens.csv')}`],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString('utf8')).slice(-2000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`kube-apiserver-lite exited with ${child.exitCode} before it was ready: ${log}`);
      if (performance.now() - started > timeoutMs) throw new Error(`kube-apiserver-lite was not ready within ${timeoutMs} ms: ${log}`);
      if ((await readyz(port, ca)) === 200) break;
      await sleep(50);
    }
    const readyMs = performance.now() - started;
    return { readyMs, cpuMs: cpuTimeMs(child.pid as number), rss: residentBytes(child.pid as number) };
  } finally {
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
