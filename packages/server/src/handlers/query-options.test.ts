import type { StatusError } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { managerOrUserAgent, parseReadQuery, parseWriteQuery } from './query-options.js';

function query(text: string): URLSearchParams {
  return new URLSearchParams(text);
}

describe('query options', () => {
  it('parses write options with Warn as the default field validation', () => {
    expect(parseWriteQuery(query(''), 'CreateOptions')).toEqual({ dryRun: false, fieldValidation: 'Warn' });
    expect(parseWriteQuery(query('dryRun=All&fieldValidation=Strict'), 'CreateOptions')).toEqual({
      dryRun: true,
      fieldValidation: 'Strict',
    });
    expect(() => parseWriteQuery(query('dryRun=x'), 'CreateOptions')).toThrow(
      'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["x"]: supported values: "All"',
    );
    expect(() => parseWriteQuery(query('fieldValidation=nope'), 'PatchOptions')).toThrow(
      'fieldValidation: Unsupported value: "nope"',
    );
  });

  it('validates resourceVersionMatch and sendInitialEvents with upstream messages', () => {
    expect(() => parseReadQuery(query('resourceVersionMatch=Exact'))).toThrow(
      'resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
    expect(() => parseReadQuery(query('resourceVersion=0&resourceVersionMatch=Exact'))).toThrow(
      'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    );
    expect(() => parseReadQuery(query('sendInitialEvents=true'))).toThrow(
      'sendInitialEvents is forbidden for list',
    );
    expect(() => parseReadQuery(query('watch=1&sendInitialEvents=true&allowWatchBookmarks=true'))).toThrow(
      'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
    expect(() => parseReadQuery(query('watch=1&resourceVersionMatch=NotOlderThan'))).toThrow(
      'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    );
    const watchList = parseReadQuery(
      query('watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan'),
    );
    expect(watchList).toMatchObject({
      watch: true,
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
    });
    expect(() => parseReadQuery(query('continue=abc&resourceVersion=5'))).toThrow(
      'specifying resource version is not allowed when using continue',
    );
  });

  it('parses selectors and rejects bad ones with 400', () => {
    const parsed = parseReadQuery(
      query('labelSelector=app%3Dweb,tier!%3Ddb&fieldSelector=metadata.name%3Dx&limit=5'),
    );
    expect(parsed.labelSelector?.matches({ app: 'web' })).toBe(true);
    expect(parsed.labelSelector?.matches({ app: 'web', tier: 'db' })).toBe(false);
    expect(parsed.fieldSelector?.matches({ 'metadata.name': 'x' })).toBe(true);
    expect(parsed.limit).toBe(5);
    expect(() => parseReadQuery(query('labelSelector=a%20b%20c'))).toThrow();
  });
});

describe('fieldManager and force', () => {
  const invalid = (query: string, kind: string, apply = false) => {
    try {
      parseWriteQuery(new URLSearchParams(query), kind, apply);
    } catch (error) {
      return (error as StatusError).status.message;
    }
    return undefined;
  };

  it('requires fieldManager for apply, forbids force elsewhere, limits length and characters', () => {
    expect(invalid('', 'PatchOptions', true)).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    expect(invalid('force=true', 'PatchOptions')).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
    expect(invalid(`fieldManager=${'x'.repeat(129)}`, 'UpdateOptions')).toBe(
      'UpdateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    );
    expect(invalid('fieldManager=%C3%A9%02', 'CreateOptions')).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "é\\u0002": invalid character U+0002 (at position 2)',
    );
    expect(parseWriteQuery(new URLSearchParams('fieldManager=m&force=true'), 'PatchOptions', true)).toMatchObject({
      fieldManager: 'm',
      force: true,
    });
  });

  it('names the manager after fieldManager, else the User-Agent prefix, else unknown', () => {
    expect(managerOrUserAgent('mine', 'kubectl/v1.32')).toBe('mine');
    expect(managerOrUserAgent(undefined, 'kubectl-client-side-apply/v1.32.4 (linux/amd64)')).toBe('kubectl-client-side-apply');
    expect(managerOrUserAgent(undefined, 'a\u0001b/1')).toBe('ab');
    expect(managerOrUserAgent(undefined, 'x'.repeat(200))).toHaveLength(128);
    expect(managerOrUserAgent(undefined, '')).toBe('unknown');
    expect(managerOrUserAgent(undefined, undefined)).toBe('unknown');
    // Remembered per User-Agent, past the cache's size too.
    for (let round = 0; round < 2; round++)
      for (let index = 0; index < 300; index++) expect(managerOrUserAgent(undefined, `agent-${index}/1.0`)).toBe(`agent-${index}`);
    expect(managerOrUserAgent(undefined, 'a\u0001b/1')).toBe('ab');
  });
});
