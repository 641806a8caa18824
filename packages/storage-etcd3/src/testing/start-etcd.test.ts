import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startEtcd, type EtcdInstance } from './index.js';

async function put(endpoint: string, key: string, value: string): Promise<void> {
  // etcd's gRPC gateway (v3 JSON API) keeps this test independent of the backend under test.
  const response = await fetch(`${endpoint}/v3/kv/put`, {
    method: 'POST',
    body: JSON.stringify({
      key: Buffer.from(key).toString('base64'),
      value: Buffer.from(value).toString('base64'),
    }),
  });
  expect(response.ok).toBe(true);
}

async function read(endpoint: string, key: string): Promise<string | undefined> {
  const response = await fetch(`${endpoint}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: Buffer.from(key).toString('base64') }),
  });
  const body = (await response.json()) as { kvs?: { value: string }[] };
  const value = body.kvs?.[0]?.value;
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startEtcd', () => {
  let etcd: EtcdInstance | undefined;
  afterAll(async () => etcd?.stop());

  it('starts a healthy etcd on a loopback port with a temporary data directory', async () => {
    etcd = await startEtcd({ progressNotifyIntervalMs: 500 });
    expect(etcd.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(existsSync(etcd.dataDir)).toBe(true);
    const health = (await (await fetch(`${etcd.endpoint}/health`)).json()) as { health: string };
    expect(health.health).toBe('true');
    await put(etcd.endpoint, 'a', '1');
    expect(await read(etcd.endpoint, 'a')).toBe('1');
  });

  it('restarts on the same port and keeps the data', async () => {
    const instance = etcd!;
    const pid = instance.pid!;
    await instance.restart();
    expect(alive(pid)).toBe(false);
    expect(instance.pid).not.toBe(pid);
    expect(await read(instance.endpoint, 'a')).toBe('1');
  });

  it('stop kills etcd and removes the data directory', async () => {
    const instance = etcd!;
    const pid = instance.pid!;
    await instance.stop();
    expect(alive(pid)).toBe(false);
    expect(existsSync(instance.dataDir)).toBe(false);
    await instance.stop(); // idempotent
  });

  it('kills etcd and removes its data when the test process is killed abruptly', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'kapi-etcd-reaper-test-'));
    const script = join(scratch, 'child.mts');
    const harness = fileURLToPath(new URL('./start-etcd.ts', import.meta.url));
    writeFileSync(
      script,
      `import { startEtcd } from ${JSON.stringify(harness)};\n` +
        `const etcd = await startEtcd();\n` +
        `console.log(JSON.stringify({ pid: etcd.pid, dataDir: etcd.dataDir }));\n` +
        `setInterval(() => undefined, 1000);\n`,
    );
    const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: repositoryRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('\n')) resolve(output.split('\n')[0]!);
        });
        child.once('exit', (code) => reject(new Error(`child exited early (${code})`)));
      });
      const started = JSON.parse(line) as { pid: number; dataDir: string };
      expect(alive(started.pid)).toBe(true);
      child.kill('SIGKILL');
      for (let attempt = 0; attempt < 100 && (alive(started.pid) || existsSync(started.dataDir)); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(alive(started.pid)).toBe(false);
      expect(existsSync(started.dataDir)).toBe(false);
    } finally {
      child.kill('SIGKILL');
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('fails clearly when the binary is missing', async () => {
    await expect(startEtcd({ binary: '/nonexistent/etcd' })).rejects.toThrow(
      'run scripts/ensure-deps.sh --with-test-tools',
    );
  });
});
