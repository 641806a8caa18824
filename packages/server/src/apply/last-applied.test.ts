import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { LAST_APPLIED_ANNOTATION, syncLastApplied } from './last-applied.js';

const object = (annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', ...(annotations ? { annotations } : {}) },
});

describe('syncLastApplied', () => {
  const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { z: '1', b: '2' } } as KubeObject;

  it('rewrites an existing annotation to the applied config as JSON with sorted keys', () => {
    const result = syncLastApplied(object({ [LAST_APPLIED_ANNOTATION]: '{}' }), config);
    expect(result.metadata.annotations?.[LAST_APPLIED_ANNOTATION]).toBe(
      '{"apiVersion":"v1","data":{"b":"2","z":"1"},"kind":"ConfigMap","metadata":{"name":"a"}}',
    );
  });

  it('adds nothing without an annotation, and drops it past 256 KiB of annotations', () => {
    expect(syncLastApplied(object(), config)).toEqual(object());
    const big = { ...config, data: { big: 'x'.repeat(300 * 1024) } } as KubeObject;
    const result = syncLastApplied(object({ [LAST_APPLIED_ANNOTATION]: '{}', other: 'y' }), big);
    expect(result.metadata.annotations).toEqual({ other: 'y' });
  });
});
