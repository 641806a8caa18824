/**
 * Test fixtures of the voting tests (not exported by the package): a Widget kind at v1 (hub), v2 and v3,
 * and a scheme that also knows the voting StorageVersion kind.
 */
import { Scheme, Type, kindSchema, type GroupResource, type KubeObject } from '@kapi/apimachinery';
import type { KVBackend, KVEvent, KVWatch } from '@kapi/storage';
import { storageVersionVoteKind } from './storage-version-vote-api.js';

export const widgetGroup = 'example.com';
export const widgets: GroupResource = { group: widgetGroup, resource: 'widgets' };

type Spec = Record<string, unknown>;
const specOf = (object: KubeObject): Spec => ((object as { spec?: Spec }).spec ?? {});

/** Widget: v1 `spec.color`, v2 `spec.colour`, v3 `spec.hue`; v1 is the hub. */
export function newTestScheme(): Scheme {
  const scheme = new Scheme();
  for (const [version, field] of [
    ['v1', 'color'],
    ['v2', 'colour'],
    ['v3', 'hue'],
  ] as const) {
    scheme.addKind({
      group: widgetGroup,
      version,
      kind: 'Widget',
      schema: kindSchema({ group: widgetGroup, version, kind: 'Widget', spec: Type.Object({ [field]: Type.Optional(Type.String()) }) }),
    });
    if (version !== 'v1') {
      scheme.addConversion({
        group: widgetGroup,
        kind: 'Widget',
        version,
        toHub: (object) => ({ ...object, spec: { color: specOf(object)[field] } }),
        fromHub: (object) => ({ ...object, spec: { [field]: specOf(object)['color'] } }),
      });
    }
  }
  scheme.addKind(storageVersionVoteKind);
  return scheme;
}

/** A hub (v1) Widget. */
export function widget(name: string, color: string): KubeObject {
  return { apiVersion: `${widgetGroup}/v1`, kind: 'Widget', metadata: { name }, spec: { color } } as KubeObject;
}

/** Every event of `kv` under `prefix` from revision 2 to the current revision, in order. */
export async function historyOf(kv: KVBackend, prefix: string): Promise<KVEvent[]> {
  const last = await kv.currentRevision();
  const events: KVEvent[] = [];
  if (last < 2) return events;
  let seen = 1;
  return new Promise((resolve, reject) => {
    let watch: KVWatch | undefined;
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      queueMicrotask(() => watch?.cancel());
      resolve(events);
    };
    watch = kv.watch(
      { key: prefix, prefix: true, startRevision: 2, progressNotify: true },
      {
        onEvents(batch) {
          for (const event of batch) {
            if (event.entry.modRevision > last) continue;
            events.push(event);
            seen = event.entry.modRevision;
          }
          if (seen >= last) finish();
        },
        onProgress(revision) {
          if (revision >= last) finish();
        },
        onError: reject,
      },
    );
    if (finished) watch.cancel();
    void kv.requestProgress?.();
  });
}

/** Yields to the event loop (a macrotask), to interleave concurrent work as a network would. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
