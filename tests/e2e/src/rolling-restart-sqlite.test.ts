import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runRollingRestart } from './rolling-restart.js';

const dataDir = mkdtempSync(join(tmpdir(), 'kapi-restart-sqlite-'));

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('restart of one replica on the embedded SQLite store (KEP-1904)', () => {
  it('neither client relists or sees a 410', async () => {
    const report = await runRollingRestart({
      args: () => ['--storage=sqlite', '--progress-notify-interval=1s'],
      replicas: 1,
      restart: [0],
      watchVia: 0,
      writeVia: 0,
      dataDirs: [dataDir],
    });
    console.log('[sqlite restart]', JSON.stringify(report));
    expect(report.writes).toBeGreaterThan(10);
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
    expect(report.watchesPerReplica[0]?.reflector).toBeGreaterThanOrEqual(2);
    expect(report.watchesPerReplica[0]?.clientNode).toBeGreaterThanOrEqual(2);
  });
});
