import { describe, expect, it } from 'vitest';
import { decodeContinueToken, encodeContinueToken } from './continue-token.js';

const prefix = '/registry/pods/';
const raw = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('continue tokens', () => {
  it('encodes the Kubernetes format: base64url without padding of {v, rv, start}', () => {
    const token = encodeContinueToken('/registry/pods/ns/b\u0000', prefix, 42);
    expect(token).not.toContain('=');
    expect(Buffer.from(token, 'base64url').toString()).toBe('{"v":"meta.k8s.io/v1","rv":42,"start":"ns/b\\u0000"}');
    expect(decodeContinueToken(token, prefix)).toEqual({ key: '/registry/pods/ns/b\u0000', resourceVersion: 42 });
  });

  it('escapes HTML characters like Go and round-trips them', () => {
    const token = encodeContinueToken('/registry/pods/a<b>&c', prefix, 7);
    expect(Buffer.from(token, 'base64url').toString()).toContain('a\\u003cb\\u003e\\u0026c');
    expect(decodeContinueToken(token, prefix).key).toBe('/registry/pods/a<b>&c');
  });

  it('round-trips the inconsistent rv -1', () => {
    const token = encodeContinueToken('/registry/pods/x\u0000', prefix, -1);
    expect(decodeContinueToken(token, prefix)).toEqual({ key: '/registry/pods/x\u0000', resourceVersion: -1 });
  });

  it('refuses to encode a key outside the prefix', () => {
    expect(() => encodeContinueToken('/registry/other/x', prefix, 1)).toThrow(
      'unable to encode next field: the key and key prefix do not match',
    );
  });

  it('rejects malformed tokens with the Kubernetes messages', () => {
    expect(() => decodeContinueToken(raw({ v: 'meta.k8s.io/v1', rv: 0, start: 'a' }), prefix)).toThrow(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
    expect(() => decodeContinueToken(raw({ v: 'meta.k8s.io/v1', rv: 3, start: '' }), prefix)).toThrow(
      'continue key is not valid: encoded start key empty (version meta.k8s.io/v1)',
    );
    expect(() => decodeContinueToken(raw({ v: 'v2', rv: 3, start: 'a' }), prefix)).toThrow(
      'continue key is not valid: server does not recognize this encoded version v2',
    );
    expect(() => decodeContinueToken(raw({ v: 'meta.k8s.io/v1', rv: 3, start: '../secrets/x' }), prefix)).toThrow(
      'continue key is not valid: ../secrets/x',
    );
    expect(() => decodeContinueToken(raw({ v: 'meta.k8s.io/v1', rv: 3, start: 'a//b' }), prefix)).toThrow('continue key is not valid');
    expect(() => decodeContinueToken('abc=', prefix)).toThrow(/^continue key is not valid: illegal base64 data/);
    expect(() => decodeContinueToken(Buffer.from('nope').toString('base64url'), prefix)).toThrow(/^continue key is not valid: /);
    expect(() => decodeContinueToken(raw({ v: 'meta.k8s.io/v1', rv: '3', start: 'a' }), prefix)).toThrow(/^continue key is not valid: /);
  });

  it('accepts a start key with a leading slash', () => {
    expect(decodeContinueToken(raw({ v: 'meta.k8s.io/v1', rv: 3, start: '/a' }), prefix).key).toBe('/registry/pods/a');
  });
});
