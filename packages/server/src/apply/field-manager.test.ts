import type { KubeObject } from '@kapi/apimachinery';
import { StatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { FieldManager } from './field-manager.js';
import { deployment, deploymentSchema } from './test-schema.js';
import { TypedValueError } from './typed-value.js';

let clock = 0;
const manager = new FieldManager({
  schemaFor: () => deploymentSchema,
  statusSubresource: true,
  now: () => new Date(Date.UTC(2024, 0, 1, 0, 0, clock)),
});

type Entry = { manager: string; operation: string; time?: string; fieldsV1?: unknown; subresource?: string };
const entries = (object: KubeObject) => (object.metadata.managedFields ?? []) as Entry[];

function created(by = 'creator'): KubeObject {
  clock = 0;
  const object = deployment() as KubeObject;
  manager.update(undefined, object, { manager: by, subresource: '' });
  object.metadata.uid = 'u1';
  return object;
}

function applyAs(live: KubeObject, config: KubeObject, name: string, force = false, subresource = ''): KubeObject {
  return manager.apply(structuredClone(live), config, { manager: name, subresource, force, created: false });
}

describe('FieldManager.update', () => {
  it('records a create with "." on new parents and without never-owned fields', () => {
    const [entry] = entries(created());
    expect(entry).toEqual({
      manager: 'creator',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time: '2024-01-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': {
          '.': {},
          'f:replicas': {},
          'f:template': {
            '.': {},
            'f:spec': { '.': {}, 'f:containers': { '.': {}, 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
          },
        },
      },
    });
  });

  it('leaves managedFields as they are when the object is written back unchanged by another manager', () => {
    const live = created();
    clock = 5;
    const next = structuredClone(live);
    manager.update(live, next, { manager: 'storage-version-migrator', subresource: '' });
    expect(next.metadata.managedFields).toEqual(live.metadata.managedFields);
    expect(entries(next).map((entry) => entry.manager)).toEqual(['creator']);
    // Equal as JSON (an undefined member is not written): still the object as it is.
    const same = { ...structuredClone(live), extra: undefined } as KubeObject;
    manager.update(live, same, { manager: 'storage-version-migrator', subresource: '' });
    expect(same.metadata.managedFields).toEqual(live.metadata.managedFields);
  });

  it('moves changed fields to the writer, bumps time only on change, and drops emptied managers', () => {
    const live = created();
    clock = 5;
    const next = structuredClone(live);
    next.metadata.labels = { app: 'web', tier: 'x' };
    (next['spec'] as { replicas: number }).replicas = 3;
    manager.update(live, next, { manager: 'editor', subresource: '' });
    const editor = entries(next).find((item) => item.manager === 'editor');
    expect(editor?.fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { 'f:tier': {} } }, 'f:spec': { 'f:replicas': {} } });
    expect(editor?.time).toBe('2024-01-01T00:00:05Z');
    expect(JSON.stringify(entries(next)[0]?.fieldsV1)).not.toContain('f:replicas');
    clock = 9;
    const same = structuredClone(next);
    manager.update(next, same, { manager: 'editor', subresource: '' });
    expect(same.metadata.managedFields).toEqual(next.metadata.managedFields);
  });

  it('honours managedFields sent in the request: reset, replace, ignore undecodable', () => {
    const live = created();
    const reset: KubeObject = structuredClone(live);
    reset.metadata.managedFields = [];
    manager.update(live, reset, { manager: 'x', subresource: '' });
    expect(reset.metadata.managedFields).toBeUndefined();
    const untracked = structuredClone(reset);
    (untracked['spec'] as { replicas: number }).replicas = 7;
    manager.update(reset, untracked, { manager: 'x', subresource: '' });
    expect(untracked.metadata.managedFields).toBeUndefined();
    const bad = structuredClone(live);
    bad.metadata.managedFields = [{ operation: 'Nope' }];
    manager.update(live, bad, { manager: 'x', subresource: '' });
    expect(entries(bad).map((item) => item.manager)).toEqual(['creator']);
  });

  it('records status writes with the subresource, owning only status', () => {
    const live = created();
    const next = { ...structuredClone(live), status: { ready: 1 } };
    manager.update(live, next, { manager: 'ctrl', subresource: 'status' });
    expect(entries(next).find((item) => item.manager === 'ctrl')).toMatchObject({
      subresource: 'status',
      fieldsV1: { 'f:status': { '.': {}, 'f:ready': {} } },
    });
  });
});

describe('FieldManager.apply', () => {
  const config = (replicas: number, extra: Record<string, unknown> = {}) =>
    ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas, ...extra } }) as KubeObject;

  it('conflicts with other owners (1 and N), and force takes ownership', () => {
    const live = created();
    let error: unknown;
    try {
      applyAs(live, config(5), 'applier');
    } catch (caught) {
      error = caught;
    }
    expect(StatusError.isInstance(error)).toBe(true);
    const status = (error as StatusError).status;
    expect(status.code).toBe(409);
    expect(status.message).toBe('Apply failed with 1 conflict: conflict with "creator" using apps/v1: .spec.replicas');
    expect(status.details).toEqual({
      causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "creator" using apps/v1', field: '.spec.replicas' }],
    });
    const forced = applyAs(live, config(5), 'applier', true);
    expect(forced['spec']).toMatchObject({ replicas: 5 });
    expect(entries(forced).map((item) => [item.manager, item.operation])).toEqual([['applier', 'Apply'], ['creator', 'Update']]);
    expect(JSON.stringify(entries(forced)[1]?.fieldsV1)).not.toContain('f:replicas');
    expect(() => applyAs(forced, config(6, { template: { spec: { containers: [{ name: 'nginx', image: 'b' }] } } }), 'other')).toThrow(
      'Apply failed with 2 conflicts: conflicts with "applier":\n- .spec.replicas\nconflicts with "creator" using apps/v1:\n- .spec.template.spec.containers[name="nginx"].image',
    );
  });

  it('shares ownership of equal values, prunes what the applier dropped, and is a no-op when nothing changes', () => {
    const live = created();
    const first = applyAs(live, config(1, { template: { spec: { containers: [{ name: 'side', image: 's' }] } } }), 'a');
    expect(entries(first).map((item) => item.manager)).toEqual(['a', 'creator']);
    expect(JSON.stringify(entries(first)[1]?.fieldsV1)).toContain('f:replicas');
    const pruned = applyAs(first, config(1), 'a');
    const containers = (pruned['spec'] as { template: { spec: { containers: Array<{ name: string }> } } }).template.spec.containers;
    expect(containers.map((item) => item.name)).toEqual(['nginx']);
    clock = 30;
    const again = applyAs(pruned, config(1), 'a');
    expect(again).toEqual(pruned);
  });

  it('records existing fields as before-first-apply when the object had no managedFields', () => {
    const live = created();
    delete live.metadata.managedFields;
    expect(() => applyAs(live, config(4), 'a')).toThrow('conflict with "before-first-apply" using apps/v1');
  });

  it('rejects fields the schema does not declare', () => {
    expect(() => applyAs(created(), config(1, { foo: 1 }), 'a')).toThrow(TypedValueError);
  });
});

describe('FieldManager.apply as kubectl with a last-applied annotation', () => {
  const annotated = () => {
    const live = created('kubectl-client-side-apply');
    const lastApplied = JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1 } });
    live.metadata.annotations = { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied };
    return live;
  };
  const config = (replicas: number, image = 'nginx:1') =>
    ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas, template: { spec: { containers: [{ name: 'nginx', image }] } } },
    }) as KubeObject;

  it('forces conflicts on fields the annotation set with the live value, and rewrites the annotation', () => {
    const result = applyAs(annotated(), config(3), 'kubectl');
    expect(result['spec']).toMatchObject({ replicas: 3 });
    expect(JSON.parse(result.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] ?? '')).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 3, template: { spec: { containers: [{ image: 'nginx:1', name: 'nginx' }] } } },
    });
  });

  it('still reports conflicts the annotation does not cover, and only for kubectl', () => {
    expect(() => applyAs(annotated(), config(3, 'nginx:2'), 'kubectl')).toThrow(
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.template.spec.containers[name="nginx"].image',
    );
    expect(() => applyAs(annotated(), config(3), 'someone')).toThrow('Apply failed with 1 conflict');
  });
});
