import type { KubeObject } from '@kapi/apimachinery';
import { Store, type KVBackend } from '@kapi/storage';
import { measureRateFor, sampleObject } from './harness.js';

/**
 * Store.create of the objects the HTTP run creates, under keys of the same shape: `bench-` and five random
 * characters, as generateName makes them. (Random keys cost SQLite about three times what ascending keys
 * cost: each insert lands on another page of the key indexes.)
 */
async function rawCreateRate(kv: KVBackend, seconds: number, nextName: () => string): Promise<number> {
  const store = new Store({ kv });
  // In a namespace of its own: on etcd, the HTTP run's objects share the store.
  const create = () => {
    const name = nextName();
    return store.create(`/registry/configmaps/raw-control/${name}`, { ...sampleObject(name), metadata: { name, namespace: 'raw-control' } } as KubeObject);
  };
  await measureRateFor(1, 64, create);
  return measureRateFor(seconds, 64, create);
}

/**
 * The raw backend's create rate, measured before and after `between` (the HTTP runs) for as long as one of
 * them, keeping the better: as the HTTP rows alternate, so that a drift of the VM favours neither side.
 */
export async function rawCreateRateAround<T>(kv: KVBackend, seconds: number, between: () => Promise<T>): Promise<{ raw: number; result: T }> {
  const nextName = distinctNames();
  const before = await rawCreateRate(kv, seconds, nextName);
  const result = await between();
  const after = await rawCreateRate(kv, seconds, nextName);
  console.log(`[bench] raw Store.create, 64 in flight: ${Math.round(before)}/s before, ${Math.round(after)}/s after the HTTP runs`);
  return { raw: Math.max(before, after), result };
}

/** A name as generateName makes it: `bench-` and five random characters of the apiserver's alphabet. */
export function generatedName(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += alphabet[Math.floor(Math.random() * alphabet.length)];
  return `bench-${suffix}`;
}

/** A source of {@link generatedName}s, none given twice. */
function distinctNames(): () => string {
  const given = new Set<string>();
  return () => {
    for (;;) {
      const name = generatedName();
      if (!given.has(name)) {
        given.add(name);
        return name;
      }
    }
  };
}
