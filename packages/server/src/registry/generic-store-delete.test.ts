import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, widget, widgetsPath, type TestServer } from '../test-support/test-server.js';

let api: TestServer;

beforeEach(async () => {
  api = await startTestServer({ now: () => new Date('2026-01-02T03:04:05.678Z') });
});
afterEach(async () => {
  await api.close();
});

const metadataOf = (body: Record<string, unknown>) =>
  body['metadata'] as { finalizers?: string[]; deletionTimestamp?: string; deletionGracePeriodSeconds?: number };

async function read(name: string) {
  return api.call('GET', `${widgetsPath()}/${name}`);
}

async function release(name: string, finalizers: string[] | null) {
  return api.call('PATCH', `${widgetsPath()}/${name}`, { metadata: { finalizers } }, {
    'Content-Type': 'application/merge-patch+json',
  });
}

describe('delete propagation (garbage collector finalizers)', () => {
  it('Foreground keeps the object with deletionTimestamp and the foregroundDeletion finalizer', async () => {
    await api.call('POST', widgetsPath(), widget('owner'));
    const marked = await api.call('DELETE', `${widgetsPath()}/owner?propagationPolicy=Foreground`);
    expect(marked.status).toBe(200);
    expect(marked.body).toMatchObject({
      kind: 'Widget',
      metadata: { finalizers: ['foregroundDeletion'], deletionTimestamp: '2026-01-02T03:04:05Z', deletionGracePeriodSeconds: 0 },
    });
    expect(metadataOf((await read('owner')).body).finalizers).toEqual(['foregroundDeletion']);
    // The garbage collector removing its finalizer removes the object.
    expect((await release('owner', null)).status).toBe(200);
    expect((await read('owner')).status).toBe(404);
    expect(await api.storage.keys()).toEqual([]);
  });

  it('Orphan (in the body, or orphanDependents) adds the orphan finalizer', async () => {
    await api.call('POST', widgetsPath(), widget('a'));
    const marked = await api.call('DELETE', `${widgetsPath()}/a`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' });
    expect(marked.status).toBe(200);
    expect(metadataOf(marked.body)).toMatchObject({ finalizers: ['orphan'], deletionTimestamp: '2026-01-02T03:04:05Z' });
    await api.call('POST', widgetsPath(), widget('b', { size: 1 }, { metadata: { name: 'b', finalizers: ['example.com/hold'] } }));
    const legacy = await api.call('DELETE', `${widgetsPath()}/b?orphanDependents=true`);
    expect(metadataOf(legacy.body).finalizers).toEqual(['example.com/hold', 'orphan']);
    expect((await release('a', [])).status).toBe(200);
    expect((await read('a')).status).toBe(404);
  });

  it('Background, or no policy, deletes at once', async () => {
    await api.call('POST', widgetsPath(), widget('a'));
    await api.call('POST', widgetsPath(), widget('b'));
    expect((await api.call('DELETE', `${widgetsPath()}/a?propagationPolicy=Background`)).status).toBe(200);
    expect((await api.call('DELETE', `${widgetsPath()}/b`)).status).toBe(200);
    expect(await api.storage.keys()).toEqual([]);
  });

  it('a second delete switches the finalizers to the new policy', async () => {
    await api.call('POST', widgetsPath(), widget('a', { size: 1 }, { metadata: { name: 'a', finalizers: ['example.com/hold'] } }));
    await api.call('DELETE', `${widgetsPath()}/a?propagationPolicy=Orphan`);
    const switched = await api.call('DELETE', `${widgetsPath()}/a?propagationPolicy=Foreground`);
    expect(switched.status).toBe(200);
    expect(metadataOf(switched.body)).toMatchObject({
      finalizers: ['example.com/hold', 'foregroundDeletion'],
      deletionTimestamp: '2026-01-02T03:04:05Z',
    });
    expect(metadataOf((await read('a')).body).finalizers).toEqual(['example.com/hold', 'foregroundDeletion']);
    // Background drops the GC finalizers; the object's own finalizer still holds it.
    const background = await api.call('DELETE', `${widgetsPath()}/a?propagationPolicy=Background`);
    expect(metadataOf(background.body).finalizers).toEqual(['example.com/hold']);
    expect((await read('a')).status).toBe(200);
  });

  it('a Background delete of an object held only by a GC finalizer deletes it', async () => {
    await api.call('POST', widgetsPath(), widget('a'));
    await api.call('DELETE', `${widgetsPath()}/a?propagationPolicy=Orphan`);
    const deleted = await api.call('DELETE', `${widgetsPath()}/a?propagationPolicy=Background`);
    expect(deleted.status).toBe(200);
    expect((await read('a')).status).toBe(404);
  });

  it('answers 202 for an object kept after orphanDependents=false, and dry runs write nothing', async () => {
    await api.call('POST', widgetsPath(), widget('a', { size: 1 }, { metadata: { name: 'a', finalizers: ['example.com/hold'] } }));
    const before = await api.storage.revision();
    const dry = await api.call('DELETE', `${widgetsPath()}/a?propagationPolicy=Foreground&dryRun=All`);
    expect(dry.status).toBe(200);
    expect(metadataOf(dry.body).finalizers).toEqual(['example.com/hold', 'foregroundDeletion']);
    expect(await api.storage.revision()).toBe(before);
    const kept = await api.call('DELETE', `${widgetsPath()}/a?orphanDependents=false`);
    expect(kept.status).toBe(202);
  });

  it('applies the policy to every object of a deletecollection', async () => {
    await api.call('POST', widgetsPath(), widget('a'));
    await api.call('POST', widgetsPath(), widget('b'));
    const list = await api.call('DELETE', `${widgetsPath()}?propagationPolicy=Foreground`);
    expect(list.status).toBe(200);
    expect(await api.storage.keys()).toHaveLength(2);
    expect(metadataOf((await read('b')).body).finalizers).toEqual(['foregroundDeletion']);
  });
});
