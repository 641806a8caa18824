import { KapiError } from '@kapi/apimachinery';
import { Store } from '@kapi/storage';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryBackend } from '@kapi/storage-memory';
import { VOTING_GROUP, storageVersionVoteName, type StorageVersionVote } from './storage-version-vote-api.js';
import {
  SelectedVersionNotDecodableError,
  StorageVersionVoter,
  storageVersionSelectionKey,
  type SelectionChange,
} from './storage-version-voter.js';
import { voteObjectsFromStorage, type VoteObjects } from './vote-objects.js';
import { historyOf, newTestScheme, widgets } from './voting-test-fixtures.js';

const name = storageVersionVoteName(widgets);
const selectionKey = storageVersionSelectionKey('/registry', widgets);
const decoder = new TextDecoder();

interface Cluster {
  kv: MemoryBackend;
  votes: VoteObjects;
  live: Set<string>;
  voter(id: string, preferredVersion: string, decodableVersions?: string[]): StorageVersionVoter;
  /** Values written to the selection key, in order. */
  selectionWrites(): Promise<string[]>;
}

const voters: StorageVersionVoter[] = [];
afterEach(() => {
  for (const voter of voters.splice(0)) voter.stop();
});

function newCluster(): Cluster {
  const kv = new MemoryBackend({ progressNotifyIntervalMs: 50 });
  const scheme = newTestScheme();
  const store = new Store({ kv, codec: scheme.codecFor({ group: VOTING_GROUP, kind: 'StorageVersion', encodingVersion: 'v1alpha1' }) });
  const votes = voteObjectsFromStorage(store, '/registry/kube-apiserver.internal.k8s.io/storageversions');
  const live = new Set(['a', 'b', 'c', 'd']);
  return {
    kv,
    votes,
    live,
    voter(id, preferredVersion, decodableVersions = ['v1', 'v2']) {
      const voter = new StorageVersionVoter({
        apiServerID: id,
        votes,
        liveServerIDs: async () => live,
        kv,
        keyPrefix: '/registry',
        retryDelayMs: 1,
      });
      voter.register({ groupResource: widgets, preferredVersion, decodableVersions });
      voters.push(voter);
      return voter;
    },
    async selectionWrites() {
      const events = await historyOf(kv, selectionKey);
      return events.filter((event) => event.type === 'put').map((event) => decoder.decode(event.entry.value));
    },
  };
}

async function voteObject(cluster: Cluster): Promise<StorageVersionVote> {
  const object = await cluster.votes.get(name);
  if (!object) throw new Error('vote object missing');
  return object;
}

describe('StorageVersionVoter', () => {
  it('keeps the old selection until the last apiserver prefers the new one, then switches exactly once', async () => {
    const cluster = newCluster();
    const observer = cluster.voter('observer', 'v1');
    const changes: SelectionChange[] = [];
    observer.onSelectionChange((change) => changes.push(change));
    await observer.start();

    // Release x+1 everywhere: all prefer v1; the first creates the object.
    const [a1, b1, c1] = [cluster.voter('a', 'v1'), cluster.voter('b', 'v1'), cluster.voter('c', 'v1')];
    expect(await Promise.all([a1.vote(widgets), b1.vote(widgets), c1.vote(widgets)])).toEqual(['v1', 'v1', 'v1']);
    const initial = await voteObject(cluster);
    expect(initial.selectedVersion).toBe('v1');
    expect(initial.candidateVersions.map((candidate) => candidate.apiServerID).sort()).toEqual(['a', 'b', 'c']);

    // Rolling upgrade to release x+2 (prefers v2): the upgraded servers keep using v1.
    const a2 = cluster.voter('a', 'v2');
    expect(await a2.vote(widgets)).toBe('v1');
    expect(a2.selectedVersion(widgets)).toBe('v1');
    const b2 = cluster.voter('b', 'v2');
    expect(await b2.vote(widgets)).toBe('v1');
    expect((await voteObject(cluster)).selectedVersion).toBe('v1');

    // The last one switches.
    const c2 = cluster.voter('c', 'v2');
    expect(await c2.vote(widgets)).toBe('v2');
    const switched = await voteObject(cluster);
    expect(switched.selectedVersion).toBe('v2');
    expect(switched.candidateVersions).toEqual([
      { apiServerID: 'a', preferredVersion: 'v2' },
      { apiServerID: 'b', preferredVersion: 'v2' },
      { apiServerID: 'c', preferredVersion: 'v2' },
    ]);

    // Votes after the switch change nothing (no writes at all).
    const revision = await cluster.kv.currentRevision();
    expect(await a2.vote(widgets)).toBe('v2');
    expect(await b2.vote(widgets)).toBe('v2');
    expect(await cluster.kv.currentRevision()).toBe(revision);

    expect(await cluster.selectionWrites()).toEqual(['v1', 'v2']);
    await vi.waitFor(() => expect(changes.map((change) => change.selectedVersion)).toEqual(['v1', 'v2']));
    expect(changes[1]).toMatchObject({ groupResource: widgets, previousVersion: 'v1' });
    expect(observer.selectedVersion(widgets)).toBe('v2');
    expect(await a2.refreshSelection(widgets)).toBe('v2');
    expect(a2.selectedVersion(widgets)).toBe('v2');
  });

  it('switches once when the last votes race each other', async () => {
    const cluster = newCluster();
    await Promise.all(['a', 'b', 'c'].map((id) => cluster.voter(id, 'v1').vote(widgets)));
    const upgraded = ['a', 'b', 'c'].map((id) => cluster.voter(id, 'v2'));
    const results = await Promise.all(upgraded.map((voter) => voter.vote(widgets)));
    expect((await voteObject(cluster)).selectedVersion).toBe('v2');
    // Whoever voted last saw the agreement; everyone that returned after it knows v2.
    expect(results).toContain('v2');
    expect(await cluster.selectionWrites()).toEqual(['v1', 'v2']);
  });

  it('drops candidates without an identity lease before counting', async () => {
    const cluster = newCluster();
    await Promise.all(['a', 'b', 'c'].map((id) => cluster.voter(id, 'v1').vote(widgets)));
    cluster.live.delete('b');

    expect(await cluster.voter('a', 'v2').vote(widgets)).toBe('v1');
    const afterA = await voteObject(cluster);
    expect(afterA.candidateVersions.map((candidate) => candidate.apiServerID)).toEqual(['a', 'c']);

    // b is gone, so c's vote completes the agreement.
    expect(await cluster.voter('c', 'v2').vote(widgets)).toBe('v2');
    expect((await voteObject(cluster)).candidateVersions).toEqual([
      { apiServerID: 'a', preferredVersion: 'v2' },
      { apiServerID: 'c', preferredVersion: 'v2' },
    ]);
  });

  it('reports an error when this apiserver cannot decode the selected version, after recording its vote', async () => {
    const cluster = newCluster();
    await cluster.voter('a', 'v1').vote(widgets);
    const skipped = cluster.voter('d', 'v3', ['v3']);

    const failure = await skipped.vote(widgets).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SelectedVersionNotDecodableError);
    expect(KapiError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toBe(
      'storage version "v1" selected for widgets.example.com is not decodable by this apiserver (decodable versions: v3)',
    );
    expect((await voteObject(cluster)).candidateVersions).toContainEqual({ apiServerID: 'd', preferredVersion: 'v3' });
    expect((await voteObject(cluster)).selectedVersion).toBe('v1');
    await expect(skipped.refreshSelection(widgets)).rejects.toBeInstanceOf(SelectedVersionNotDecodableError);

    const outcomes = await skipped.voteAll();
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]?.error).toBeInstanceOf(SelectedVersionNotDecodableError);
  });

  it('finishes a switch whose author stopped between the object and the selection key, never moving the key back', async () => {
    const cluster = newCluster();
    await cluster.voter('a', 'v1').vote(widgets);
    // Simulate an apiserver that selected v2 and died before writing the key.
    const stale = await voteObject(cluster);
    await cluster.votes.update({ ...stale, selectedVersion: 'v2', candidateVersions: [{ apiServerID: 'a', preferredVersion: 'v2' }] });
    expect(decoder.decode((await cluster.kv.get(selectionKey)).entry?.value)).toBe('v1');

    const b = cluster.voter('b', 'v1');
    expect(await b.vote(widgets)).toBe('v2');
    expect(await cluster.selectionWrites()).toEqual(['v1', 'v2']);
    // The object keeps v2 (b's v1 preference is one of two), so the key stays v2.
    expect(await cluster.voter('b', 'v1').vote(widgets)).toBe('v2');
    expect(await cluster.selectionWrites()).toEqual(['v1', 'v2']);
  });

  it('refuses an unregistered resource and a missing selection', async () => {
    const cluster = newCluster();
    const voter = cluster.voter('a', 'v1');
    await expect(voter.vote({ group: 'apps', resource: 'deployments' })).rejects.toThrow(
      'resource deployments.apps is not registered for storage version voting',
    );
    await expect(voter.refreshSelection(widgets)).rejects.toThrow(
      `no storage version has been selected for widgets.example.com yet (key ${selectionKey} is missing)`,
    );
    expect(voter.selectedVersion(widgets)).toBeUndefined();
    expect(voter.selectionFor(widgets).currentSelection()).toBe('v1');
  });

  it('garbage-collects the votes (and selection keys) of resources no live apiserver votes for, and only those', async () => {
    const cluster = newCluster();
    const voter = cluster.voter('a', 'v1');
    await voter.vote(widgets);
    const encoder = new TextEncoder();
    const stale = (resource: string, apiServerID: string) =>
      cluster.votes.create({
        apiVersion: `${VOTING_GROUP}/v1alpha1`,
        kind: 'StorageVersion',
        metadata: { name: `example.com.${resource}` },
        selectedVersion: 'v1',
        candidateVersions: [{ apiServerID, preferredVersion: 'v1' }],
      });
    await stale('gadgets', 'gone');
    await cluster.kv.create(storageVersionSelectionKey('/registry', { group: 'example.com', resource: 'gadgets' }), encoder.encode('v1'));
    await stale('sprockets', 'b');
    cluster.live.delete('gone');

    expect(await voter.collectGarbage()).toEqual(['example.com.gadgets']);
    expect(await cluster.votes.get('example.com.gadgets')).toBeUndefined();
    expect((await cluster.kv.get(storageVersionSelectionKey('/registry', { group: 'example.com', resource: 'gadgets' }))).entry).toBeUndefined();
    expect((await cluster.votes.list()).map((vote) => vote.metadata.name).sort()).toEqual([name, 'example.com.sprockets'].sort());
    expect((await cluster.kv.get(selectionKey)).entry).toBeDefined();

    // A vote written after the read wins: the conditioned delete refuses, the object stays.
    cluster.live.delete('b');
    const sprockets = await cluster.votes.get('example.com.sprockets');
    await cluster.votes.update({ ...(sprockets as StorageVersionVote), candidateVersions: [{ apiServerID: 'c', preferredVersion: 'v1' }] });
    await expect(cluster.votes.delete('example.com.sprockets', sprockets?.metadata.resourceVersion ?? '')).rejects.toMatchObject({
      code: 'ResourceVersionConflict',
    });
    expect(await voter.collectGarbage()).toEqual([]);
  });

  it('stores vote objects the scheme validates', async () => {
    const cluster = newCluster();
    await cluster.voter('a', 'v1').vote(widgets);
    const scheme = newTestScheme();
    expect(scheme.validate(await voteObject(cluster))).toEqual([]);
    expect(
      scheme.validate({
        apiVersion: `${VOTING_GROUP}/v1alpha1`,
        kind: 'StorageVersion',
        metadata: { name: 'widgets' },
        selectedVersion: '',
        candidateVersions: [
          { apiServerID: 'a', preferredVersion: 'v1' },
          { apiServerID: 'a', preferredVersion: '' },
        ],
      } as StorageVersionVote),
    ).toEqual([
      { field: 'candidateVersions[1]', type: 'FieldValueDuplicate', value: { apiServerID: 'a' }, detail: '' },
      { field: 'metadata.name', type: 'FieldValueInvalid', value: 'widgets', detail: 'name must be in the form of <group>.<resource>' },
      { field: 'selectedVersion', type: 'FieldValueRequired', detail: 'selectedVersion cannot be empty' },
      { field: 'candidateVersions[1].preferredVersion', type: 'FieldValueRequired', detail: 'preferredVersion cannot be empty' },
    ]);
  });
});
