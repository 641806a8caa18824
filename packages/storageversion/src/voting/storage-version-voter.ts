import { KapiError, groupResourceString, type GroupResource } from '@kapi/apimachinery';
import type { KVBackend, KVEvent, KVWatch } from '@kapi/storage';
import {
  VOTING_API_VERSION,
  storageVersionVoteName,
  type StorageVersionVote,
  type VersionCandidate,
} from './storage-version-vote-api.js';
import { isVoteConflict, type VoteObjects } from './vote-objects.js';

/** One resource this apiserver stores, as it takes part in the vote. Versions are within the group (`v2`). */
export interface VotingResource {
  groupResource: GroupResource;
  /** The storage version this apiserver's release prefers. */
  preferredVersion: string;
  /** Versions whose stored bytes this apiserver can read (and so can encode in). */
  decodableVersions: string[];
}

/** A change of a resource's selected storage version, as seen through the selection key. */
export interface SelectionChange {
  groupResource: GroupResource;
  selectedVersion: string;
  /** The version selected before, when this apiserver knew one. */
  previousVersion?: string | undefined;
  /** The selection key's modRevision. */
  revision: number;
}

/** Options of {@link StorageVersionVoter}. */
export interface StorageVersionVoterOptions {
  /** This apiserver's identity (its identity lease's name). */
  apiServerID: string;
  /** Where the vote objects live. */
  votes: VoteObjects;
  /** IDs of the apiservers holding an identity lease; candidates of other IDs are dropped. */
  liveServerIDs: () => Promise<ReadonlySet<string>>;
  /** The raw backend holding the selection keys (the same one the resources are stored in). */
  kv: KVBackend;
  /** Storage prefix of the selection keys, e.g. `/registry`: keys are `<keyPrefix>/storage-version-selection/<group>.<resource>`. */
  keyPrefix: string;
  /** Delay before retrying a conflicting write; default 100 ms. */
  retryDelayMs?: number;
  /** Conflicting writes retried at most this many times per vote; default 100. */
  maxConflictRetries?: number;
}

/** The selection of a resource is not decodable by this apiserver (it cannot serve the resource). */
export class SelectedVersionNotDecodableError extends KapiError {
  constructor(
    readonly groupResource: GroupResource,
    readonly selectedVersion: string,
    readonly decodableVersions: readonly string[],
  ) {
    super(
      `storage version ${JSON.stringify(selectedVersion)} selected for ${groupResourceString(groupResource)} is not decodable by this apiserver (decodable versions: ${decodableVersions.join(', ')})`,
    );
  }
}

/** The raw KV key holding the selected storage version of a resource. */
export function storageVersionSelectionKey(keyPrefix: string, groupResource: GroupResource): string {
  return `${selectionPrefix(keyPrefix)}${storageVersionVoteName(groupResource)}`;
}

function selectionPrefix(keyPrefix: string): string {
  return `${keyPrefix.replace(/\/+$/, '')}/storage-version-selection/`;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface KnownSelection {
  version: string;
  revision: number;
}

/**
 * Storage-version voting (the 2019 "coordinated dynamic storage version" design), one per apiserver. For
 * each registered resource, {@link vote} records this apiserver's preferred version in the resource's
 * StorageVersion vote object, drops candidates of apiservers without an identity lease, and selects the
 * common preference once every candidate agrees. The selection is then copied to a selection key in the
 * raw KV store, which {@link conditionedBackend} compares every write against (the strict guarantee).
 */
export class StorageVersionVoter {
  private readonly resources = new Map<string, VotingResource>();
  private readonly known = new Map<string, KnownSelection>();
  private readonly listeners = new Set<(change: SelectionChange) => void>();
  private readonly prefix: string;
  private watch: KVWatch | undefined;
  private running = false;

  constructor(private readonly options: StorageVersionVoterOptions) {
    this.prefix = selectionPrefix(options.keyPrefix);
  }

  /** Registers a resource (replacing an earlier registration of the same GroupResource). */
  register(resource: VotingResource): void {
    this.resources.set(storageVersionVoteName(resource.groupResource), resource);
  }

  /** The selection key of a resource. */
  selectionKey(groupResource: GroupResource): string {
    return storageVersionSelectionKey(this.options.keyPrefix, groupResource);
  }

  /** The selected version this apiserver knows of (from its votes, the watch and refreshes); undefined before any. */
  selectedVersion(groupResource: GroupResource): string | undefined {
    return this.known.get(storageVersionVoteName(groupResource))?.version;
  }

  /** Calls `listener` on every change of a known selection; returns the unsubscribe function. */
  onSelectionChange(listener: (change: SelectionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Reads the selection key now. Throws when no version was selected yet, or when the selection is not
   * decodable by this apiserver ({@link SelectedVersionNotDecodableError}, for registered resources).
   */
  async refreshSelection(groupResource: GroupResource): Promise<string> {
    const key = this.selectionKey(groupResource);
    const { entry } = await this.options.kv.get(key);
    if (!entry) {
      throw new KapiError(`no storage version has been selected for ${groupResourceString(groupResource)} yet (key ${key} is missing)`);
    }
    this.apply(storageVersionVoteName(groupResource), decoder.decode(entry.value), entry.modRevision);
    const version = this.selectedVersion(groupResource) ?? decoder.decode(entry.value);
    this.checkDecodable(storageVersionVoteName(groupResource), version);
    return version;
  }

  /**
   * What {@link conditionedBackend} needs for one resource: its selection key, the selection (this
   * apiserver's preference until one is known; throws {@link SelectedVersionNotDecodableError} while the
   * known selection is not decodable here, so the codec refuses to write) and the refresh.
   */
  selectionFor(groupResource: GroupResource): {
    selectionKey: string;
    currentSelection: () => string;
    refreshSelection: () => Promise<string>;
  } {
    const name = storageVersionVoteName(groupResource);
    return {
      selectionKey: this.selectionKey(groupResource),
      currentSelection: () => {
        const known = this.known.get(name)?.version;
        if (known === undefined) return this.resources.get(name)?.preferredVersion ?? '';
        this.checkDecodable(name, known);
        return known;
      },
      refreshSelection: () => this.refreshSelection(groupResource),
    };
  }

  /** Votes for every registered resource; one failure does not stop the others. */
  async voteAll(): Promise<Array<{ groupResource: GroupResource; selectedVersion?: string; error?: unknown }>> {
    const outcomes: Array<{ groupResource: GroupResource; selectedVersion?: string; error?: unknown }> = [];
    for (const resource of this.resources.values()) {
      try {
        outcomes.push({ groupResource: resource.groupResource, selectedVersion: await this.vote(resource.groupResource) });
      } catch (error) {
        outcomes.push({ groupResource: resource.groupResource, error });
      }
    }
    return outcomes;
  }

  /**
   * Votes for one registered resource and returns the selected version. Creates the vote object with this
   * apiserver's preference when missing; otherwise upserts this apiserver's candidate, drops candidates
   * without an identity lease, selects the common preference when all agree, and updates with the
   * resourceVersion read (retried on conflict). Then brings the selection key up to date. Throws
   * {@link SelectedVersionNotDecodableError} when the selection is not decodable here (the vote is recorded).
   */
  async vote(groupResource: GroupResource): Promise<string> {
    const name = storageVersionVoteName(groupResource);
    const resource = this.resources.get(name);
    if (!resource) throw new KapiError(`resource ${groupResourceString(groupResource)} is not registered for storage version voting`);
    const mine: VersionCandidate = { apiServerID: this.options.apiServerID, preferredVersion: resource.preferredVersion };
    const maxRetries = this.options.maxConflictRetries ?? 100;
    for (let conflicts = 0; ; conflicts++) {
      try {
        await this.writeVote(name, mine);
        break;
      } catch (error) {
        if (!isVoteConflict(error) || conflicts >= maxRetries) throw error;
        await sleep(this.options.retryDelayMs ?? 100);
      }
    }
    const selected = await this.publishSelection(name);
    this.checkDecodable(name, selected);
    return selected;
  }

  /**
   * Garbage-collects the vote objects of resources no apiserver serves any more (seed 001, at bootstrap):
   * deletes every vote object none of whose candidates holds an identity lease, then its selection key.
   * Both deletes are conditioned on what was read, so an apiserver voting meanwhile keeps its vote and
   * selection. Returns the names deleted.
   */
  async collectGarbage(): Promise<string[]> {
    const live = await this.options.liveServerIDs();
    const deleted: string[] = [];
    for (const vote of await this.options.votes.list()) {
      const name = vote.metadata.name ?? '';
      if (this.resources.has(name) || (vote.candidateVersions ?? []).some((candidate) => live.has(candidate.apiServerID))) continue;
      const { entry } = await this.options.kv.get(`${this.prefix}${name}`);
      try {
        await this.options.votes.delete(name, vote.metadata.resourceVersion ?? '');
      } catch (error) {
        if (isVoteConflict(error)) continue; // someone voted since: the resource is served again
        throw error;
      }
      if (entry) await this.options.kv.delete(entry.key, entry.modRevision);
      this.known.delete(name);
      deleted.push(name);
    }
    return deleted;
  }

  /** Starts watching the selection keys (after reading them all), so {@link selectedVersion} follows switches. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.listAndWatch();
  }

  /** Stops the watch. */
  stop(): void {
    this.running = false;
    this.watch?.cancel();
    this.watch = undefined;
  }

  private async writeVote(name: string, mine: VersionCandidate): Promise<void> {
    const current = await this.options.votes.get(name);
    if (!current) {
      await this.options.votes.create({
        apiVersion: VOTING_API_VERSION,
        kind: 'StorageVersion',
        metadata: { name },
        selectedVersion: mine.preferredVersion,
        candidateVersions: [mine],
      });
      return;
    }
    const live = await this.options.liveServerIDs();
    const candidates: VersionCandidate[] = [];
    let placed = false;
    for (const candidate of current.candidateVersions ?? []) {
      if (candidate.apiServerID === mine.apiServerID) {
        if (!placed) candidates.push(mine);
        placed = true;
      } else if (live.has(candidate.apiServerID)) {
        candidates.push(candidate);
      }
    }
    if (!placed) candidates.push(mine);
    const agreed = candidates.every((candidate) => candidate.preferredVersion === mine.preferredVersion);
    const selectedVersion = agreed ? mine.preferredVersion : current.selectedVersion;
    if (
      selectedVersion === current.selectedVersion &&
      JSON.stringify(candidates) === JSON.stringify(current.candidateVersions ?? [])
    ) {
      return;
    }
    const next: StorageVersionVote = { ...current, selectedVersion, candidateVersions: candidates };
    await this.options.votes.update(next);
  }

  /**
   * Makes the selection key equal the vote object's selectedVersion: read the key, then the object, and
   * compare-and-swap the key from the revision read. Reading the object after the key makes the key move
   * only forward in the order of the object's selections, whichever voter gets there first; a key that
   * already holds the selection is not written (idempotent). Normally the voter that changed
   * selectedVersion is the one that writes; another voter writes only to finish a switch whose author died
   * between the two writes.
   */
  private async publishSelection(name: string): Promise<string> {
    const key = `${this.prefix}${name}`;
    for (;;) {
      const { entry } = await this.options.kv.get(key);
      const vote = await this.options.votes.get(name);
      if (!vote) throw new KapiError(`storage version vote ${name} disappeared while publishing its selection`);
      const selected = vote.selectedVersion;
      if (entry && decoder.decode(entry.value) === selected) {
        this.apply(name, selected, entry.modRevision);
        return selected;
      }
      const bytes = encoder.encode(selected);
      const result = entry
        ? await this.options.kv.update(key, bytes, entry.modRevision)
        : await this.options.kv.create(key, bytes);
      if (result.succeeded) {
        this.apply(name, selected, result.revision);
        return selected;
      }
    }
  }

  private checkDecodable(name: string, version: string): void {
    const resource = this.resources.get(name);
    if (resource && !resource.decodableVersions.includes(version)) {
      throw new SelectedVersionNotDecodableError(resource.groupResource, version, resource.decodableVersions);
    }
  }

  /** Records a selection read at `revision`; older reads never overwrite newer ones. */
  private apply(name: string, version: string, revision: number): void {
    const previous = this.known.get(name);
    if (previous && previous.revision >= revision) return;
    this.known.set(name, { version, revision });
    if (previous?.version === version) return;
    const groupResource = this.resources.get(name)?.groupResource ?? groupResourceOfName(name);
    for (const listener of this.listeners) {
      listener({ groupResource, selectedVersion: version, previousVersion: previous?.version, revision });
    }
  }

  private async listAndWatch(): Promise<void> {
    const listed = await this.options.kv.range({ key: this.prefix, prefix: true });
    for (const entry of listed.entries) this.apply(entry.key.slice(this.prefix.length), decoder.decode(entry.value), entry.modRevision);
    if (!this.running) return;
    this.watch = this.options.kv.watch(
      { key: this.prefix, prefix: true, startRevision: listed.revision + 1 },
      {
        onEvents: (events: KVEvent[]) => {
          for (const event of events) {
            if (event.type !== 'put') continue;
            this.apply(event.entry.key.slice(this.prefix.length), decoder.decode(event.entry.value), event.entry.modRevision);
          }
        },
        onError: () => {
          this.watch = undefined;
          if (!this.running) return;
          // Compacted or broken: list again and resume.
          setTimeout(() => {
            if (this.running) this.listAndWatch().catch(() => undefined);
          }, this.options.retryDelayMs ?? 100);
        },
      },
    );
  }
}

/** `<group>.<resource>` back to a GroupResource (`core` is the empty group). */
function groupResourceOfName(name: string): GroupResource {
  const dot = name.lastIndexOf('.');
  const group = dot < 0 ? '' : name.slice(0, dot);
  return { group: group === 'core' ? '' : group, resource: name.slice(dot + 1) };
}
