import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RestClient } from '@kapi/client';
import { afterEach, describe, expect, it } from 'vitest';
import { runMigration } from './migration-runner.js';
import { TokenBucket } from './token-bucket.js';

/** What the stand-in server saw, in order: writes of objects and saves of the migration's status. */
type Event = { kind: 'patch'; name: string } | { kind: 'save-start' | 'save-end'; migrated: number; succeeded: boolean };

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A server of one running migration over 2 pages of 3 configmaps; each status save takes `saveMs`. */
async function server(events: Event[], saveMs: number): Promise<RestClient> {
  const item = (index: number) => ({ metadata: { name: `o${index}`, namespace: 'ns', uid: `u${index}`, resourceVersion: String(10 + index) } });
  let resourceVersion = 1;
  const migration = () => ({
    metadata: { name: 'm', resourceVersion: String(resourceVersion) },
    spec: { resource: { group: '', resource: 'configmaps' } },
    status: { resourceVersion: '100', conditions: [{ type: 'Running', status: 'True', reason: 'r', message: 'm', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  });
  const json = (response: ServerResponse, body: unknown) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(body));
  };
  const handle = async (request: IncomingMessage, response: ServerResponse, body: string) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname === '/api/v1') return json(response, { resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['list', 'update', 'patch'] }] });
    if (url.pathname === '/api/v1/configmaps') {
      const second = url.searchParams.get('continue') === 'p2';
      return json(response, { metadata: second ? {} : { continue: 'p2' }, items: (second ? [3, 4, 5] : [0, 1, 2]).map(item) });
    }
    if (request.method === 'PATCH') {
      events.push({ kind: 'patch', name: url.pathname.split('/').pop() ?? '' });
      return json(response, {});
    }
    if (url.pathname.endsWith('/status')) {
      const saved = JSON.parse(body) as { status?: { progress?: { migratedObjects?: number }; conditions?: Array<{ type: string; status: string }> } };
      const mark = { migrated: saved.status?.progress?.migratedObjects ?? 0, succeeded: (saved.status?.conditions ?? []).some((c) => c.type === 'Succeeded' && c.status === 'True') };
      events.push({ kind: 'save-start', ...mark });
      await new Promise((resolve) => setTimeout(resolve, saveMs));
      events.push({ kind: 'save-end', ...mark });
      resourceVersion++;
      return json(response, { ...saved, metadata: { name: 'm', resourceVersion: String(resourceVersion) } });
    }
    return json(response, migration());
  };
  const http = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => void handle(request, response, body));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const rest = new RestClient({ server: `http://127.0.0.1:${(http.address() as AddressInfo).port}` });
  closers.push(async () => {
    rest.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });
  return rest;
}

describe('runMigration pages', () => {
  it("writes the next page's objects while the last page's progress is saved, and succeeds only after the last save", async () => {
    const events: Event[] = [];
    const rest = await server(events, 150);
    await runMigration('m', {
      rest,
      limiter: new TokenBucket(0, 1),
      backoff: { initialMs: 10, maxMs: 100 },
      pageSize: 3,
      writesInFlight: 2,
      signal: new AbortController().signal,
    });
    const at = (predicate: (event: Event) => boolean) => events.findIndex(predicate);
    const firstSaveEnd = at((event) => event.kind === 'save-end' && event.migrated === 3);
    // Page 2's writes went out before page 1's progress save was answered.
    expect(at((event) => event.kind === 'patch' && event.name === 'o3')).toBeLessThan(firstSaveEnd);
    // Saves never overlap, and the Succeeded condition is written after the last page's progress.
    const saves = events.filter((event) => event.kind !== 'patch');
    expect(saves.map((event) => event.kind)).toEqual(['save-start', 'save-end', 'save-start', 'save-end', 'save-start', 'save-end']);
    expect(saves.map((event) => event.migrated)).toEqual([3, 3, 6, 6, 6, 6]);
    expect(saves.at(-1)).toMatchObject({ succeeded: true });
  });
});
