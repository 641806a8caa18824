import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgetReaped, reapOnDeath } from './reaper.js';

/** Options of {@link startEtcd}. */
export interface StartEtcdOptions {
  /** `--experimental-watch-progress-notify-interval` in milliseconds. Default 1000. */
  progressNotifyIntervalMs?: number;
  /** The etcd binary. Default: `$KAPI_ETCD_BINARY`, else `/usr/bin/etcd`. */
  binary?: string;
  /** How long to wait for etcd to become healthy. Default 20 s. */
  startTimeoutMs?: number;
  /** Where the temporary data directory is made (e.g. `/dev/shm` for a tmpfs). Default: the OS temp directory. */
  parentDir?: string;
}

/** A running etcd started by {@link startEtcd}. */
export interface EtcdInstance {
  /** Client URL, `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** The data directory (removed by {@link EtcdInstance.stop}). */
  readonly dataDir: string;
  /** The etcd process id (changes on restart). */
  readonly pid: number | undefined;
  /** Stops etcd (SIGTERM, then SIGKILL) and removes its data directory. Idempotent. */
  stop(): Promise<void>;
  /** Stops etcd and starts it again on the same ports and data directory. */
  restart(): Promise<void>;
}

const DEFAULT_BINARY = '/usr/bin/etcd';
const LOG_LIMIT = 16 * 1024;

/** Every etcd this process started and has not stopped, killed on process exit. */
const running = new Set<{ child: ChildProcess | undefined; dataDir: string }>();
let exitHookInstalled = false;

function killAll(): void {
  for (const instance of running) {
    try {
      instance.child?.kill('SIGKILL');
    } catch {
      // already gone
    }
    rmSync(instance.dataDir, { recursive: true, force: true });
  }
  running.clear();
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      killAll();
      // Keep the default behaviour (terminate) unless someone else handles the signal.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.once(signal, onSignal);
  }
}

/** Returns a free TCP port on 127.0.0.1. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function isHealthy(endpoint: string): Promise<boolean> {
  try {
    const response = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
    if (!response.ok) return false;
    const body: unknown = await response.json();
    return typeof body === 'object' && body !== null && (body as { health?: unknown }).health === 'true';
  } catch {
    return false;
  }
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Starts a real single-member etcd on free loopback ports with a temporary data directory, and waits
 * until it is healthy. The process is killed when the calling process exits.
 *
 * @example
 * const etcd = await startEtcd({ progressNotifyIntervalMs: 500 });
 * const backend = await Etcd3Backend.connect({ endpoints: [etcd.endpoint] });
 * // ...
 * await backend.close();
 * await etcd.stop();
 */
export async function startEtcd(options: StartEtcdOptions = {}): Promise<EtcdInstance> {
  const binary = options.binary ?? process.env['KAPI_ETCD_BINARY'] ?? DEFAULT_BINARY;
  if (!existsSync(binary)) {
    throw new Error(`etcd binary not found at ${binary}: run scripts/ensure-deps.sh --with-test-tools`);
  }
  // A port found free may be taken before etcd binds it (other tests run alongside): try fresh ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePorts(binary, options);
    } catch (error) {
      const portTaken = error instanceof Error && error.message.includes('address already in use');
      if (!portTaken || attempt >= 3) throw error;
    }
  }
}

async function startOnFreePorts(binary: string, options: StartEtcdOptions): Promise<EtcdInstance> {
  const progressNotifyIntervalMs = options.progressNotifyIntervalMs ?? 1000;
  const startTimeoutMs = options.startTimeoutMs ?? 20_000;
  const clientPort = await freePort();
  let peerPort = await freePort();
  while (peerPort === clientPort) peerPort = await freePort();
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const dataDir = mkdtempSync(join(options.parentDir ?? tmpdir(), 'kapi-etcd-'));
  const args = [
    '--name',
    'kapi-test',
    '--data-dir',
    dataDir,
    '--listen-client-urls',
    endpoint,
    '--advertise-client-urls',
    endpoint,
    '--listen-peer-urls',
    peerUrl,
    '--initial-advertise-peer-urls',
    peerUrl,
    '--initial-cluster',
    `kapi-test=${peerUrl}`,
    '--initial-cluster-state',
    'new',
    `--experimental-watch-progress-notify-interval=${progressNotifyIntervalMs}ms`,
    '--logger',
    'zap',
    '--log-level',
    'warn',
  ];
  const state: { child: ChildProcess | undefined; dataDir: string } = { child: undefined, dataDir };
  let log = '';
  let stopped = false;
  installExitHook();
  running.add(state);

  const launch = async (): Promise<void> => {
    log = '';
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    state.child = child;
    if (child.pid !== undefined) reapOnDeath(child.pid, dataDir);
    const append = (chunk: Buffer): void => {
      log = (log + chunk.toString('utf8')).slice(-LOG_LIMIT);
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    let spawnError: Error | undefined;
    child.once('error', (error) => (spawnError = error));
    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      if (spawnError) throw new Error(`cannot start etcd (${binary}): ${spawnError.message}`);
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `etcd exited during start-up (code ${child.exitCode}, signal ${child.signalCode}):\n${log}`,
        );
      }
      if (await isHealthy(endpoint)) return;
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`etcd did not become healthy at ${endpoint} within ${startTimeoutMs} ms:\n${log}`);
      }
      await delay(100);
    }
  };

  const halt = async (): Promise<void> => {
    const child = state.child;
    if (!child) return;
    child.kill('SIGTERM');
    if (!(await waitForExit(child, 5000))) {
      child.kill('SIGKILL');
      await waitForExit(child, 5000);
    }
    if (child.pid !== undefined) forgetReaped(child.pid);
    state.child = undefined;
  };

  try {
    await launch();
  } catch (error) {
    await halt();
    running.delete(state);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }

  return {
    endpoint,
    dataDir,
    get pid() {
      return state.child?.pid;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await halt();
      running.delete(state);
      rmSync(dataDir, { recursive: true, force: true });
    },
    async restart() {
      if (stopped) throw new Error('etcd was stopped');
      await halt();
      await launch();
    },
  };
}
