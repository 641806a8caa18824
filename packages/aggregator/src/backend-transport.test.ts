import { describe, expect, it } from 'vitest';
import { escapeExtraKey, identityHeaders } from './backend-transport.js';

describe('identityHeaders', () => {
  it('sends the UID as X-Remote-Uid when the user has one', () => {
    expect(identityHeaders({ name: 'alice', uid: 'u-1', groups: [] })).toEqual({ 'X-Remote-User': 'alice', 'X-Remote-Uid': 'u-1' });
    expect(identityHeaders({ name: 'alice', uid: '', groups: [] })).toEqual({ 'X-Remote-User': 'alice' });
  });

  it('sends the user, one X-Remote-Group per group and escaped X-Remote-Extra- keys, as client-go', () => {
    expect(
      identityHeaders({ name: 'alice', groups: ['a', 'b'], extra: { 'scopes.example.com/x y%': ['r', 'w'], empty: [] } }),
    ).toEqual({
      'X-Remote-User': 'alice',
      'X-Remote-Group': ['a', 'b'],
      'X-Remote-Extra-scopes.example.com%2Fx%20y%25': ['r', 'w'],
    });
    expect(escapeExtraKey('ü')).toBe('%C3%BC');
  });
});
