import { mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { AuditEvent } from '@kapi/filters';
import { AuditLogWriter } from './audit-log-writer.js';

function event(index: number): AuditEvent {
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID: `id-${index}`,
    stage: 'ResponseComplete',
    requestURI: '/api/v1/namespaces/default/configmaps',
    verb: 'create',
    user: { username: 'admin' },
    requestReceivedTimestamp: '2026-01-01T00:00:00.000000Z',
    stageTimestamp: '2026-01-01T00:00:00.000000Z',
  };
}

describe('AuditLogWriter', () => {
  it('writes JSON lines and rotates past maxsize, keeping maxbackup backups', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kapi-audit-log-'));
    const path = join(dir, 'audit.log');
    let now = Date.parse('2026-01-01T00:00:00Z');
    const writer = new AuditLogWriter({ path, maxSizeMB: 1000 / (1024 * 1024), maxBackups: 2, now: () => (now += 1000) });
    for (let index = 0; index < 40; index++) writer.write(event(index));
    writer.close();

    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(3);
    expect(files).toContain('audit.log');
    for (const name of files) {
      expect(name).toMatch(/^audit(-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3})?\.log$/);
      const lines = readFileSync(join(dir, name), 'utf8').trim().split('\n');
      expect(lines.join('\n').length).toBeLessThanOrEqual(1000);
      for (const line of lines) expect((JSON.parse(line) as AuditEvent).kind).toBe('Event');
    }
    // The newest events are kept: the last one written is in the current file.
    expect(readFileSync(path, 'utf8')).toContain('"id-39"');
  });

  it('removes backups older than maxage', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kapi-audit-log-'));
    const path = join(dir, 'audit.log');
    const old = join(dir, 'audit-2020-01-01T00-00-00.000.log');
    writeFileSync(old, '{}\n');
    utimesSync(old, new Date('2020-01-01'), new Date('2020-01-01'));
    const writer = new AuditLogWriter({ path, maxSizeMB: 300 / (1024 * 1024), maxAgeDays: 1 });
    for (let index = 0; index < 3; index++) writer.write(event(index));
    writer.close();
    expect(readdirSync(dir)).not.toContain('audit-2020-01-01T00-00-00.000.log');
    expect(readdirSync(dir).length).toBeGreaterThan(1);
  });
});

describe('AuditLogWriter to stdout', () => {
  it('writes each event as one JSON line on stdout for the path -', () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(Buffer.from(chunk).toString());
      return true;
    });
    try {
      new AuditLogWriter({ path: '-' }).write(event(1));
    } finally {
      spy.mockRestore();
    }
    expect(written).toHaveLength(1);
    expect(written[0]?.endsWith('\n')).toBe(true);
    expect(JSON.parse(written[0] ?? '')).toMatchObject({ kind: 'Event', auditID: 'id-1' });
  });
});
