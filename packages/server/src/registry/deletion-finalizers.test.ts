import { describe, expect, it } from 'vitest';
import { deletionFinalizersForGarbageCollection } from './deletion-finalizers.js';

describe('deletionFinalizersForGarbageCollection', () => {
  it('adds the finalizer of the policy', () => {
    expect(deletionFinalizersForGarbageCollection([], { propagationPolicy: 'Foreground' })).toEqual({
      changed: true,
      finalizers: ['foregroundDeletion'],
    });
    expect(deletionFinalizersForGarbageCollection(['a'], { propagationPolicy: 'Orphan' })).toEqual({
      changed: true,
      finalizers: ['a', 'orphan'],
    });
    expect(deletionFinalizersForGarbageCollection([], { orphanDependents: true })).toEqual({
      changed: true,
      finalizers: ['orphan'],
    });
  });

  it('leaves the finalizers alone for Background or no policy', () => {
    expect(deletionFinalizersForGarbageCollection(['a'], {})).toEqual({ changed: false, finalizers: ['a'] });
    expect(deletionFinalizersForGarbageCollection([], { propagationPolicy: 'Background' })).toEqual({
      changed: false,
      finalizers: [],
    });
  });

  it('switches an object already being deleted to the new policy', () => {
    expect(deletionFinalizersForGarbageCollection(['orphan', 'a'], { propagationPolicy: 'Foreground' })).toEqual({
      changed: true,
      finalizers: ['a', 'foregroundDeletion'],
    });
    expect(deletionFinalizersForGarbageCollection(['foregroundDeletion'], { propagationPolicy: 'Background' })).toEqual({
      changed: true,
      finalizers: [],
    });
    expect(deletionFinalizersForGarbageCollection(['orphan'], { orphanDependents: false })).toEqual({
      changed: true,
      finalizers: [],
    });
  });

  it('keeps an existing GC finalizer when no policy is given', () => {
    expect(deletionFinalizersForGarbageCollection(['orphan'], {})).toEqual({ changed: false, finalizers: ['orphan'] });
    expect(deletionFinalizersForGarbageCollection(['foregroundDeletion'], {})).toEqual({
      changed: false,
      finalizers: ['foregroundDeletion'],
    });
  });
});
