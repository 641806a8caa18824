import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sleep } from '@kapi/client';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm run demo:ha', () => {
  it('starts etcd and three replicas, upgrades HPA storage step by step, and cleans up everything on Ctrl-C', async () => {
    // Its own process group, so the SIGINT below reaches npm and the demo as a terminal's Ctrl-C does.
    const demo = spawn('npm', ['run', '--silent', 'demo:ha'], {
      cwd: repoRoot,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KAPI_DEMO_PORT: '0' },
    });
    let output = '';
    demo.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    demo.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<string>((resolveExit) => demo.once('exit', (code, signal) => resolveExit(signal ?? `code ${code}`)));
    try {
      for (let waited = 0; !output.includes('press Ctrl-C') && demo.exitCode === null && waited < 220_000; waited += 250) await sleep(250);
      expect(output).toContain('press Ctrl-C');
    } catch (error) {
      process.kill(-(demo.pid as number), 'SIGKILL');
      throw new Error(`${String(error)}\n${output}`);
    }

    const root = /files under (\S+)/.exec(output)?.[1] ?? '';
    const etcd = /etcd serving at (\S+)/.exec(output)?.[1] ?? '';
    const pids = [...output.matchAll(/\(pid (\d+)\)/g)].map((match) => Number(match[1]));
    expect(existsSync(root)).toBe(true);
    expect(output).toMatch(/console: +kubectl --kubeconfig \S+admin\.kubeconfig proxy --port=8001, then open http:\/\/127\.0\.0\.1:8001\/console\//);
    expect(output.match(/kubeconfig: \S+admin\.kubeconfig {2}\(replica-\d\)/g)).toHaveLength(3);
    // Three starts and three restarts; the StorageVersion disagrees mid-way and agrees on v2 at the end.
    expect(pids).toHaveLength(6);
    for (const step of [1, 2, 3]) expect(output).toContain(`step ${step}/3: restarting replica-${step} to store HPAs as autoscaling/v2`);
    expect(output).toContain('commonEncodingVersion: (none: the servers disagree); AllEncodingVersionsEqual=False');
    const last = output.slice(output.indexOf('step 3/3'));
    for (const replica of [1, 2, 3]) expect(last).toContain(`replica-${replica} encodes autoscaling/v2`);
    expect(last).toContain('commonEncodingVersion: autoscaling/v2; AllEncodingVersionsEqual=True (CommonEncodingVersionSet)');
    expect(pids.slice(3).every(alive)).toBe(true);

    process.kill(-(demo.pid as number), 'SIGINT');
    // npm re-raises the signal its script got (as after a terminal's Ctrl-C); the demo itself exits 0.
    expect(['code 0', 'SIGINT']).toContain(await exited);
    for (let waited = 0; !output.includes('stopped; removed') && waited < 30_000; waited += 100) await sleep(100);
    expect(output).toContain(`stopped; removed ${root}`);
    expect(existsSync(root)).toBe(false);
    expect(pids.filter(alive)).toEqual([]);
    await expect(fetch(`${etcd}/health`)).rejects.toThrow();
  }, 280_000);
});
