import type { KVEvent, KVWatchListener } from '@kapi/storage';

/** A watch listener that records what it gets. */
export class EventRecorder implements KVWatchListener {
  readonly events: KVEvent[] = [];
  readonly batches: KVEvent[][] = [];
  readonly progress: number[] = [];
  readonly errors: Error[] = [];

  onEvents(events: KVEvent[]): void {
    this.batches.push(events);
    this.events.push(...events);
  }

  onProgress(revision: number): void {
    this.progress.push(revision);
  }

  onError(error: Error): void {
    this.errors.push(error);
  }

  /** `type key@modRevision` for each event, easy to compare. */
  summary(): string[] {
    return this.events.map((event) => `${event.type} ${event.entry.key}@${event.entry.modRevision}`);
  }
}
