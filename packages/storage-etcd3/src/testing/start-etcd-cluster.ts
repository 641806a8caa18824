import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgetReaped, reapOnDeath } from './reaper.js';

/** One member of a cluster started by {@link startEtcdCluster}. */
export interface EtcdClusterMember {
  readonly name: string;
  /** Client URL, `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** SIGKILLs the member (a crash: no graceful leadership transfer). */
  kill(): Promise<void>;
}

/** A running etcd cluster on loopback. */
export interface EtcdCluster {
  readonly members: readonly EtcdClusterMember[];
  /** The member that currently leads, as a live member reports it. */
  leader(): Promise<EtcdClusterMember>;
  /** Kills every member and removes the data directories. */
  stop(): Promise<void>;
}

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

/** Asks a member for its status through etcd's JSON gateway: its own id and the leader's. */
async function status(endpoint: string): Promise<{ memberId: string; leader: string } | undefined> {
  try {
    const response = await fetch(`${endpoint}/v3/maintenance/status`, {
      method: 'POST',
      body: '{}',
      signal: AbortSignal.timeout(1000),
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { header?: { member_id?: string }; leader?: string };
    if (!body.header?.member_id || !body.leader || body.leader === '0') return undefined;
    return { memberId: body.header.member_id, leader: body.leader };
  } catch {
    return undefined;
  }
}

/**
 * Starts a real `size`-member etcd cluster on free loopback ports (temporary data directories) and
 * waits until it has a leader. Members are killed when the calling process exits.
 */
export async function startEtcdCluster(size = 3, binary = process.env['KAPI_ETCD_BINARY'] ?? '/usr/bin/etcd'): Promise<EtcdCluster> {
  if (!existsSync(binary)) throw new Error(`etcd binary not found at ${binary}`);
  const specs: Array<{ name: string; client: string; peer: string; dataDir: string }> = [];
  for (let index = 0; index < size; index++) {
    specs.push({
      name: `member-${index}`,
      client: `http://127.0.0.1:${await freePort()}`,
      peer: `http://127.0.0.1:${await freePort()}`,
      dataDir: mkdtempSync(join(tmpdir(), 'kapi-etcd-cluster-')),
    });
  }
  const initialCluster = specs.map((spec) => `${spec.name}=${spec.peer}`).join(',');
  const children: ChildProcess[] = specs.map((spec) => {
    const child = spawn(
      binary,
      [
        '--name', spec.name,
        '--data-dir', spec.dataDir,
        '--listen-client-urls', spec.client,
        '--advertise-client-urls', spec.client,
        '--listen-peer-urls', spec.peer,
        '--initial-advertise-peer-urls', spec.peer,
        '--initial-cluster', initialCluster,
        '--initial-cluster-state', 'new',
        '--experimental-watch-progress-notify-interval=1000ms',
        '--logger', 'zap',
        '--log-level', 'error',
      ],
      { stdio: 'ignore' },
    );
    if (child.pid !== undefined) reapOnDeath(child.pid, spec.dataDir);
    return child;
  });
  const killChild = async (child: ChildProcess): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    if (child.pid !== undefined) forgetReaped(child.pid);
  };
  const members: EtcdClusterMember[] = specs.map((spec, index) => ({
    name: spec.name,
    endpoint: spec.client,
    kill: () => killChild(children[index] as ChildProcess),
  }));
  const onExit = (): void => {
    for (const child of children) child.kill('SIGKILL');
  };
  process.once('exit', onExit);
  const stop = async (): Promise<void> => {
    process.off('exit', onExit);
    await Promise.all(children.map(killChild));
    for (const spec of specs) rmSync(spec.dataDir, { recursive: true, force: true });
  };
  const leader = async (): Promise<EtcdClusterMember> => {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const statuses = await Promise.all(specs.map((spec) => status(spec.client)));
      const reported = statuses.find((entry) => entry !== undefined);
      if (reported) {
        const index = statuses.findIndex((entry) => entry?.memberId === reported.leader);
        const member = members[index];
        if (member) return member;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the etcd cluster has no leader');
  };
  try {
    await leader();
  } catch (error) {
    await stop();
    throw error;
  }
  return { members, leader, stop };
}
