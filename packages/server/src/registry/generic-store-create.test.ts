import { MemoryBackend } from '@kapi/storage-memory';
import { Store } from '@kapi/storage';
import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { widget } from '../test-support/test-server.js';
import { widgetDefinition, widgetScheme } from '../test-support/widget-scheme.js';
import { GenericStore } from './generic-store.js';

function widgetStore(): GenericStore {
  const scheme = widgetScheme();
  return new GenericStore({
    definition: widgetDefinition(),
    scheme,
    storage: new Store({ kv: new MemoryBackend() }),
    prefix: '/registry/widgets',
  });
}

describe('GenericStore.create and the object it is given', () => {
  it("prepares a copy: the caller's object stays as it was sent", async () => {
    const sent = widget('kept', { size: 2 }) as KubeObject;
    const before = structuredClone(sent);
    const created = await widgetStore().create('default', sent, 'v1', { dryRun: false, subresource: '', manager: 'test' });
    expect(created.metadata.uid).toBeDefined();
    expect(sent).toEqual(before);
  });

  it('prepares an object handed over in place (no copy), and still copies one with a generated name', async () => {
    const store = widgetStore();
    const sent = widget('given', { size: 2 }) as KubeObject;
    await store.create('default', sent, 'v1', { dryRun: false, subresource: '', manager: 'test', handsOverObject: true });
    expect(sent.metadata.uid).toBeDefined();
    expect(sent.metadata.managedFields).toHaveLength(1);

    const generated = { ...widget('', { size: 2 }), metadata: { generateName: 'w-' } } as KubeObject;
    const before = structuredClone(generated);
    const created = await store.create('default', generated, 'v1', { dryRun: false, subresource: '', manager: 'test', handsOverObject: true });
    expect(created.metadata.name).toMatch(/^w-/);
    expect(generated).toEqual(before);
  });
});
