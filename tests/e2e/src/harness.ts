import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { RestClient, loadKubeconfig } from '@kapi/client';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const mainScript = join(repoRoot, 'apps/kube-apiserver-lite/src/main.ts');
const execFileAsync = promisify(execFile);

/** Every server process a test started; killed when the test process exits, whatever happened. */
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** How long {@link TestServer.stop} waits for the server to exit on SIGTERM before it kills it. */
const stopGraceMs = 30_000;

/** A kube-apiserver-lite process started for a test. */
export interface TestServer {
  url: string;
  kubeconfig: string;
  dataDir: string;
  process: ChildProcess;
  /** Everything the process printed. */
  output(): string;
  /** A REST client with the admin credentials. */
  client(): RestClient;
  /** SIGTERM and wait for exit; a server still running 30 s later is killed and stop() throws. */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
}

/** A node process started by {@link spawnNode}. */
export interface SpawnedNode {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves when it has exited. */
  exited: Promise<void>;
}

/** Runs `node args` from the repository root, collecting its output; killed when the test process exits. */
export function spawnNode(args: string[]): SpawnedNode {
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  return { child, output: () => output, exited };
}

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /** Extra flags. */
  args?: string[];
  /** Reuse a data dir (restart); default a new temp dir, removed by stop(). */
  dataDir?: string;
  /** Keep the data dir on stop (for restarts). */
  keepDataDir?: boolean;
  /** Fixed port (default: a free one picked by the server). */
  port?: number;
  /** Wait for /readyz (default true). */
  waitReady?: boolean;
  timeoutMs?: number;
}

/** Starts kube-apiserver-lite from source (tsx) on a free port and waits until it serves and is ready. */
export async function startServer(options: StartServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'kapi-e2e-'));
  const args = [
    '--conditions=@kapi/source',
    '--import',
    'tsx',
    mainScript,
    `--secure-port=${options.port ?? 0}`,
    `--data-dir=${dataDir}`,
    ...(options.args ?? []),
  ];
  const { child, output, exited } = spawnNode(args);
  // Below vitest's 60 s hook timeout, so a server that does not come up is killed here, not leaked.
  const timeoutMs = options.timeoutMs ?? 50_000;
  const deadline = Date.now() + timeoutMs;
  let url = '';
  let kubeconfig = '';
  while (!url || !kubeconfig) {
    const serving = /serving on (https:\/\/[^\s]+)/.exec(output());
    const config = /admin kubeconfig: (\S+)/.exec(output());
    if (serving?.[1]) url = serving[1];
    if (config?.[1]) kubeconfig = config[1];
    if (child.exitCode !== null)
      throw new Error(`kube-apiserver-lite exited with ${child.exitCode}:\n${output()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`kube-apiserver-lite did not start in ${timeoutMs} ms:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const clients: RestClient[] = [];
  const server: TestServer = {
    url,
    kubeconfig,
    dataDir,
    process: child,
    output,
    client() {
      const client = new RestClient(loadKubeconfig(kubeconfig));
      clients.push(client);
      return client;
    },
    async stop() {
      for (const client of clients) client.close();
      if (child.exitCode === null) child.kill('SIGTERM');
      // A server that does not stop on SIGTERM is killed (never left running to load the rest of the
      // suite), and the test fails: kube-apiserver-lite must shut down gracefully.
      let timer: NodeJS.Timeout | undefined;
      const stopped = await Promise.race([exited.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), stopGraceMs)))]);
      clearTimeout(timer);
      if (!stopped) {
        child.kill('SIGKILL');
        await exited;
      }
      if (!options.keepDataDir && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (!stopped) throw new Error(`kube-apiserver-lite did not stop within ${stopGraceMs / 1000} s of SIGTERM (killed):\n${output().slice(-4000)}`);
    },
    async kill() {
      for (const client of clients) client.close();
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  if (options.waitReady ?? true) {
    try {
      await waitReady(server, deadline);
    } catch (error) {
      await server.kill();
      throw error;
    }
  }
  return server;
}

/** A free loopback port. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

/** Polls /readyz until 200. */
export async function waitReady(server: TestServer, deadline = Date.now() + 60_000): Promise<void> {
  const client = server.client();
  let last = '';
  while (Date.now() < deadline) {
    try {
      const response = await client.raw({ method: 'GET', path: '/readyz', query: { verbose: 'true' } });
      if (response.statusCode === 200) return;
      last = response.body.toString();
    } catch (error) {
      last = String(error);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server not ready: ${last}\n${server.output()}`);
}

/** Runs kubectl against the server; resolves with stdout (rejects with stderr on failure). */
export async function kubectl(server: TestServer, args: string[], input?: string): Promise<string> {
  const command = process.env.KUBECTL ?? 'kubectl';
  if (input !== undefined) {
    return new Promise((resolvePromise, reject) => {
      const child = spawn(command, ['--kubeconfig', server.kubeconfig, ...args], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('exit', (code) =>
        code === 0
          ? resolvePromise(stdout)
          : reject(new Error(`kubectl ${args.join(' ')} failed (${code}): ${stderr}`)),
      );
      child.stdin.end(input);
    });
  }
  try {
    const { stdout } = await execFileAsync(command, ['--kubeconfig', server.kubeconfig, ...args], {
      maxBuffer: 64 << 20,
    });
    return stdout;
  } catch (error) {
    const failure = error as { stderr?: string; code?: number };
    throw new Error(`kubectl ${args.join(' ')} failed (${failure.code}): ${failure.stderr ?? String(error)}`);
  }
}

/** Starts `count` replicas on fixed free ports (so each can be restarted on the same port). */
export async function startReplicas(
  count: number,
  args: (replica: number) => string[],
): Promise<{ servers: TestServer[]; ports: number[] }> {
  const servers: TestServer[] = [];
  const ports: number[] = [];
  for (let replica = 0; replica < count; replica++) {
    const port = await freePort();
    ports.push(port);
    servers.push(await startServer({ port, args: args(replica), keepDataDir: true }));
  }
  return { servers, ports };
}

/**
 * Polls `probe` every 200 ms until it returns something other than undefined, and returns that; fails after
 * `timeoutMs` with `what` and the last error `probe` threw (an error counts as "not yet").
 */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
