import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnNode, type TestServer } from './harness.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
/** The sample aggregated server as a third party runs it: its tsup build, on the packages' dist. */
export const aggregatedServerMain = join(repoRoot, 'apps/aggregated-server/dist/main.js');

/** An aggregated (wardle) server process started for a test. */
export interface TestAggregatedServer {
  url: string;
  /** PEM of its serving CA. */
  ca: string;
  /** Its apiserver identity (identity Lease and StorageVersion entries); '' with --publish-storage-versions=false. */
  identity: string;
  dataDir: string;
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Options of {@link startAggregatedServer}. */
export interface StartAggregatedServerOptions {
  /** Extra flags (e.g. `--requestheader-client-ca-file=...`). */
  args?: string[];
  dataDir?: string;
  timeoutMs?: number;
}

/** Builds the app and the packages it uses when its dist is missing (a single test run from a fresh tree). */
function ensureBuilt(): void {
  if (existsSync(aggregatedServerMain)) return;
  execFileSync('pnpm', ['exec', 'turbo', 'run', 'build', '--filter=@kapi/aggregated-server...', '--output-logs=errors-only'], {
    cwd: repoRoot,
    stdio: 'inherit',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
  });
}

/**
 * Starts `node apps/aggregated-server/dist/main.js` against `main` (its admin kubeconfig) on a free
 * loopback port and waits until it serves and has registered itself on the main server.
 */
export async function startAggregatedServer(
  main: Pick<TestServer, 'kubeconfig'>,
  options: StartAggregatedServerOptions = {},
): Promise<TestAggregatedServer> {
  ensureBuilt();
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'kapi-wardle-'));
  const { child, output, exited } = spawnNode([
    aggregatedServerMain,
    `--kubeconfig=${main.kubeconfig}`,
    '--secure-port=0',
    '--bind-address=127.0.0.1',
    `--data-dir=${dataDir}`,
    ...(options.args ?? []),
  ]);
  const timeoutMs = options.timeoutMs ?? 50_000;
  const deadline = Date.now() + timeoutMs;
  const registers = !(options.args ?? []).includes('--register=false');
  let url = '';
  while (!url || (registers && !output().includes('registered APIServices'))) {
    url = /serving on (https:\/\/\S+)/.exec(output())?.[1] ?? '';
    if (child.exitCode !== null) throw new Error(`aggregated-server exited with ${child.exitCode}:\n${output()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`aggregated-server did not start in ${timeoutMs} ms:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    ca: readFileSync(join(dataDir, 'ca.crt'), 'utf8'),
    identity: /StorageVersions published as (\S+)/.exec(output())?.[1] ?? '',
    dataDir,
    process: child,
    output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
