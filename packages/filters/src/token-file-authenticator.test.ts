import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { parseTokenFile, tokenFileAuthenticator } from './token-file-authenticator.js';

function withBearer(token: string | undefined): IncomingMessage {
  return { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } } as IncomingMessage;
}

describe('parseTokenFile', () => {
  it('reads token,user,uid and an optional quoted group list', () => {
    const tokens = parseTokenFile(
      '\uFEFFt1,alice,1,"a,b"\r\nt2,bob,2\n\n,skipped,3\n"t,3",carol,3,"x ""quoted"""\nt2,bob-again,4,\n',
    );
    expect(Object.fromEntries(tokens)).toEqual({
      t1: { name: 'alice', uid: '1', groups: ['a', 'b'] },
      t2: { name: 'bob-again', uid: '4', groups: [''] },
      't,3': { name: 'carol', uid: '3', groups: ['x "quoted"'] },
    });
  });

  it('rejects lines with fewer than 3 columns, as kube-apiserver does', () => {
    expect(() => parseTokenFile('t1,alice\n', '/etc/tokens.csv')).toThrow(
      "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 2",
    );
  });
});

describe('tokenFileAuthenticator', () => {
  it('reads the file from a path', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'kapi-tokens-'));
    try {
      const path = join(directory, 'tokens.csv');
      writeFileSync(path, 'secret,admin,0,system:masters\n');
      for (const authenticate of [tokenFileAuthenticator(path), tokenFileAuthenticator({ path })]) {
        expect(await authenticate(withBearer('secret'))).toEqual({
          name: 'admin',
          uid: '0',
          groups: ['system:masters'],
        });
        expect(await authenticate(withBearer(undefined))).toBeUndefined();
        expect(() => authenticate(withBearer('other'))).toThrow('invalid bearer token');
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('answers every request of a token with the same frozen user', async () => {
    const authenticate = tokenFileAuthenticator({ content: 'secret,admin,0,"a,b"\n' });
    const first = await authenticate(withBearer('secret'));
    expect(await authenticate(withBearer('secret'))).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first?.groups)).toBe(true);
    expect(() => first?.groups.push('c')).toThrow(TypeError);
  });
});
