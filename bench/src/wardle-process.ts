import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const mainScript = fileURLToPath(new URL('../../apps/aggregated-server/src/main.ts', import.meta.url));

/** The sample aggregated (wardle) server running in its own process. */
export interface WardleProcess {
  url: string;
  /** PEM of its serving CA. */
  ca: string;
  stop(): Promise<void>;
}

/**
 * Starts apps/aggregated-server from source in a child process against the main server's admin
 * kubeconfig, as a real aggregated server runs (its own process, delegated authn/authz, self-registration);
 * resolves once it serves and has registered its APIServices.
 */
export async function startWardle(kubeconfig: string, dataDir: string): Promise<WardleProcess> {
  // With KAPI_BENCH_PROFILE, the server's CPU profile (its whole life) goes there too, written when it exits.
  const profile = process.env.KAPI_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.KAPI_BENCH_PROFILE}`] : [];
  const child = spawn(
    process.execPath,
    [...profile, '--conditions=@kapi/source', '--import', 'tsx', mainScript, `--kubeconfig=${kubeconfig}`, '--secure-port=0', `--data-dir=${dataDir}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  while (!output.includes('registered APIServices')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`aggregated-server did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: /serving on (https:\/\/\S+)/.exec(output)?.[1] ?? '',
    ca: readFileSync(join(dataDir, 'ca.crt'), 'utf8'),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
