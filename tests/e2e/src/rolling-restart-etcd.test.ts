import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEtcd } from '@kapi/storage-etcd3/testing';
import { runRollingRestart } from './rolling-restart.js';

type Etcd = Awaited<ReturnType<typeof startEtcd>>;
let etcd: Etcd;

beforeAll(async () => {
  etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
});

afterAll(async () => {
  await etcd?.stop();
});

const replicaArgs = (extra: string[]) => (replica: number) => [
  '--storage=etcd',
  `--etcd-servers=${etcd.endpoint}`,
  `--hostname-override=replica-${replica + 1}`,
  '--etcd-compaction-interval=10m',
  ...extra,
];

describe('rolling restart of three replicas on one etcd (KEP-1904)', () => {
  it('neither client relists or sees a 410 with progress notify and history loading', async () => {
    const report = await runRollingRestart({
      args: replicaArgs([]),
      replicas: 3,
      restart: [0, 1, 2],
      watchVia: 0,
      writeVia: 1,
    });
    console.log('[rolling restart, KEP-1904 on]', JSON.stringify(report));
    expect(report.writes).toBeGreaterThan(20);
    expect(report.reflector.expired).toBe(0);
    expect(report.reflector.relists).toBe(0);
    expect(report.clientNode.expired).toBe(0);
    expect(report.clientNode.relists).toBe(0);
    expect(report.reflector.lastSyncResourceVersion).toBeGreaterThanOrEqual(
      report.lastWriteBeforeLastRestart,
    );
    // Both watches are alive and current at the end: the write after the restarts reached them.
    expect(report.reflector.lastSyncResourceVersion).toBeGreaterThanOrEqual(report.finalWrite);
    expect(report.clientNode.lastResourceVersion).toBeGreaterThanOrEqual(report.finalWrite);
    // Both clients watch through every replica, and every restart ended (and re-established) a watch of each.
    expect(report.watchesPerReplica).toHaveLength(3);
    for (const watches of report.watchesPerReplica) {
      expect(watches.reflector).toBeGreaterThanOrEqual(2);
      expect(watches.clientNode).toBeGreaterThanOrEqual(2);
    }
  });

  it('baseline: with progress notify and history loading off, clients relist', async () => {
    const report = await runRollingRestart({
      args: replicaArgs(['--watch-cache-progress-notify=false', '--watch-cache-history=false']),
      replicas: 3,
      restart: [0, 1, 2],
      watchVia: 0,
      writeVia: 1,
    });
    console.log('[rolling restart, upstream-before-KEP-1904 baseline]', JSON.stringify(report));
    // Each client relists on its own (one client's relist does not stand for the other's).
    expect(report.reflector.relists).toBeGreaterThan(0);
    expect(report.clientNode.relists).toBeGreaterThan(0);
    expect(report.clientNode.lastResourceVersion).toBeGreaterThanOrEqual(report.finalWrite);
  });
});
