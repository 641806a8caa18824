import { readFileSync } from 'node:fs';
import type { UserInfo } from './handler.js';
import { bearerToken, type Authenticator } from './with-authentication.js';

/** Where the token file comes from: a path, or its text. */
export type TokenFileSource = string | { path: string } | { content: string };

/**
 * Parses a kube-apiserver `--token-auth-file`: CSV lines `token,user,uid[,"group1,group2"]`.
 * Lines with an empty token are skipped; a later duplicate token wins. Throws on fewer than 3 columns.
 * The users are frozen: every request with a token shares its user.
 */
export function parseTokenFile(content: string, name = 'token file'): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  const records = parseCsv(content.replace(/^\uFEFF/, ''));
  for (const record of records) {
    if (record.length < 3) {
      throw new Error(
        `token file '${name}' must have at least 3 columns (token, user name, user uid), found ${record.length}`,
      );
    }
    const [token = '', userName = '', uid = '', groups] = record;
    if (token === '') continue;
    const user: UserInfo = { name: userName, uid, groups: Object.freeze(groups === undefined ? [] : groups.split(',')) as string[] };
    tokens.set(token, Object.freeze(user));
  }
  return tokens;
}

/**
 * Authenticates `Authorization: Bearer <token>` against a static token file. A bearer token not in
 * the file is an error (so it cannot fall through to anonymous).
 */
export function tokenFileAuthenticator(source: TokenFileSource): Authenticator {
  let tokens: Map<string, UserInfo>;
  if (typeof source === 'string') tokens = parseTokenFile(readFileSync(source, 'utf8'), source);
  else if ('path' in source) tokens = parseTokenFile(readFileSync(source.path, 'utf8'), source.path);
  else tokens = parseTokenFile(source.content);
  return (request) => {
    const token = bearerToken(request);
    if (token === undefined) return undefined;
    const user = tokens.get(token);
    if (!user) throw new Error('invalid bearer token');
    return user;
  };
}

/** A small RFC 4180 reader (quoted fields, doubled quotes, CRLF); blank lines are skipped like Go's csv. */
function parseCsv(content: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStarted = false;
  const endRecord = () => {
    if (fieldStarted || record.length > 0) {
      record.push(field);
      records.push(record);
    }
    record = [];
    field = '';
    fieldStarted = false;
  };
  for (let index = 0; index < content.length; index += 1) {
    const char = content[index];
    if (quoted) {
      if (char === '"') {
        if (content[index + 1] === '"') {
          field += '"';
          index += 1;
        } else quoted = false;
      } else field += char;
      continue;
    }
    if (char === '"' && field === '') {
      quoted = true;
      fieldStarted = true;
    } else if (char === ',') {
      record.push(field);
      field = '';
      fieldStarted = true;
    } else if (char === '\n') {
      endRecord();
    } else if (char === '\r' && content[index + 1] === '\n') {
      continue;
    } else {
      field += char;
      fieldStarted = true;
    }
  }
  endRecord();
  return records;
}
