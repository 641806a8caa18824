import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { aggregatedServerMain } from './aggregated-server.js';
import { spawnNode, startServer } from './harness.js';

// The command around both server binaries (@kapi/server's runServerCommand): flags, --help, signals.
const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const liteMain = ['--conditions=@kapi/source', '--import', 'tsx', join(repoRoot, 'apps/kube-apiserver-lite/src/main.ts')];

async function run(args: string[]): Promise<{ code: number | null; output: string }> {
  const { child, output, exited } = spawnNode(args);
  await exited;
  return { code: child.exitCode, output: output() };
}

describe('kube-apiserver-lite as a command', () => {
  it('refuses an unknown flag with exit code 2, the error and the help', async () => {
    const answer = await run([...liteMain, '--bogus-flag']);
    expect(answer.code).toBe(2);
    expect(answer.output).toContain("error: Unknown option '--bogus-flag'");
    expect(answer.output).toContain('Usage: kube-apiserver-lite [flags]');
  });

  it('prints the help for --help and exits 0 without serving', async () => {
    const answer = await run([...liteMain, '--help']);
    expect(answer.code).toBe(0);
    expect(answer.output).toMatch(/^Usage: kube-apiserver-lite \[flags\]/);
    expect(answer.output).not.toContain('serving on');
  });

  it('stops gracefully on SIGTERM with exit code 0', async () => {
    const server = await startServer();
    await server.stop();
    expect(server.process.exitCode).toBe(0);
    expect(server.output()).toContain('[kube-apiserver-lite] SIGTERM: shutting down gracefully');
  }, 60_000);
});

describe('the aggregated server (its dist) as a command', () => {
  it('refuses an unknown flag with exit code 2, the error and the help', async () => {
    const answer = await run([aggregatedServerMain, '--bogus-flag']);
    expect(answer.code).toBe(2);
    expect(answer.output).toContain("error: Unknown option '--bogus-flag'");
    expect(answer.output).toContain('Usage: aggregated-server --kubeconfig <file> [flags]');
  });
});
