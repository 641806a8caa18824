import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@kapi/apimachinery';
import { mergeForUpdate, validateFinalizersWhileDeleting } from './merge-for-update.js';

const current: KubeObject = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: {
    name: 'a',
    uid: 'u1',
    creationTimestamp: 't0',
    generation: 3,
    resourceVersion: '7',
    managedFields: [{ manager: 'm' }],
  },
  spec: { size: 1 },
  status: { phase: 'Running' },
};

describe('mergeForUpdate', () => {
  it('keeps immutable metadata and the stored status on the main resource, bumping generation on spec changes', () => {
    const result = mergeForUpdate(
      {
        ...current,
        metadata: { name: 'a', uid: 'other', creationTimestamp: 'later', resourceVersion: '7' },
        spec: { size: 2 },
        status: { phase: 'X' },
      },
      current,
      { statusSubresource: true, subresource: '' },
    );
    expect(result).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: {
        name: 'a',
        uid: 'u1',
        creationTimestamp: 't0',
        generation: 4,
        managedFields: [{ manager: 'm' }],
      },
      spec: { size: 2 },
      status: { phase: 'Running' },
    });
  });

  it('takes only status through /status, and everything without a status subresource', () => {
    const requested = {
      ...current,
      metadata: { ...current.metadata, labels: { x: 'y' } },
      spec: { size: 9 },
      status: { phase: 'Done' },
    };
    const status = mergeForUpdate(structuredClone(requested), current, {
      statusSubresource: true,
      subresource: 'status',
    });
    expect(status).toMatchObject({
      spec: { size: 1 },
      status: { phase: 'Done' },
      metadata: { generation: 3 },
    });
    expect(status.metadata.labels).toBeUndefined();
    const plain = mergeForUpdate(structuredClone(requested), current, {
      statusSubresource: false,
      subresource: '',
    });
    expect(plain).toMatchObject({
      spec: { size: 9 },
      status: { phase: 'Done' },
      metadata: { generation: 4, labels: { x: 'y' } },
    });
  });

  it('refuses new finalizers on an object being deleted', () => {
    const deleting = {
      ...current,
      metadata: { ...current.metadata, deletionTimestamp: 't1', finalizers: ['a'] },
    };
    expect(
      validateFinalizersWhileDeleting(
        { ...deleting, metadata: { ...deleting.metadata, finalizers: [] } },
        deleting,
      ),
    ).toEqual([]);
    expect(
      validateFinalizersWhileDeleting(
        { ...deleting, metadata: { ...deleting.metadata, finalizers: ['a', 'b'] } },
        deleting,
      ),
    ).toHaveLength(1);
    expect(
      validateFinalizersWhileDeleting(
        { ...current, metadata: { ...current.metadata, finalizers: ['b'] } },
        current,
      ),
    ).toEqual([]);
  });
});
