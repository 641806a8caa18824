import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from '@kapi/client';
import type { TestServer } from './harness.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const migratorMain = join(repoRoot, 'apps/storage-version-migrator/src/main.ts');

/** A storage-version-migrator process started from source. */
export interface StandaloneMigrator {
  /** Everything it printed. */
  output(): string;
  /** Its exit code once it exits. */
  exited: Promise<number | null>;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
}

/** Starts apps/storage-version-migrator (tsx) with the flags; `waitRunning` waits until it reports it runs. */
export async function startMigrator(flags: string[], waitRunning = true): Promise<StandaloneMigrator> {
  const child = spawn(process.execPath, ['--conditions=@kapi/source', '--import', 'tsx', migratorMain, ...flags], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  const migrator: StandaloneMigrator = {
    output: () => output,
    exited,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  const deadline = Date.now() + 30_000;
  while (waitRunning && !output.includes('running (qps')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await migrator.kill();
      throw new Error(`the migrator did not start:\n${output}`);
    }
    await sleep(50);
  }
  return migrator;
}

/** Writes a kubeconfig for `server` that authenticates with a bearer token; returns its path. */
export function tokenKubeconfig(server: TestServer, token: string, path: string): string {
  const ca = server.client().config.ca;
  const cluster = { server: server.url, ...(ca ? { 'certificate-authority-data': Buffer.from(ca).toString('base64') } : {}) };
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kapi', cluster }],
    users: [{ name: 'migrator', user: { token } }],
    contexts: [{ name: 'migrator', context: { cluster: 'kapi', user: 'migrator' } }],
    'current-context': 'migrator',
  };
  writeFileSync(path, JSON.stringify(kubeconfig));
  return path;
}
