/** The error texts of k8s.io/apiserver pkg/storage/continue.go. */
const invalidStartRV = 'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)';
const emptyStartKey = 'continue key is not valid: encoded start key empty (version meta.k8s.io/v1)';
const genericInvalidKey = 'continue key is not valid';
const unrecognizedVersion = 'continue key is not valid: server does not recognize this encoded version';

/** A decoded continue token: the full key to continue from and the revision of the list (-1: latest). */
export interface DecodedContinueToken {
  key: string;
  resourceVersion: number;
}

/**
 * Encodes a continue token the way Kubernetes does: base64url (no padding) of
 * `{"v":"meta.k8s.io/v1","rv":<rv>,"start":"<key minus keyPrefix>"}`. `key` is usually the last
 * listed key followed by `\u0000`. Throws when `key` is not below `keyPrefix`.
 */
export function encodeContinueToken(key: string, keyPrefix: string, resourceVersion: number): string {
  if (!key.startsWith(keyPrefix) || key === keyPrefix) {
    throw new Error('unable to encode next field: the key and key prefix do not match');
  }
  const start = key.slice(keyPrefix.length);
  // Go's encoding/json escapes <, > and & (and U+2028/9); do the same so tokens are byte-identical.
  const json = JSON.stringify({ v: 'meta.k8s.io/v1', rv: resourceVersion, start }).replace(
    /[<>&\u2028\u2029]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return Buffer.from(json, 'utf8').toString('base64url');
}

/**
 * Decodes a continue token against the list's key prefix. Throws an Error with the Kubernetes text
 * (`continue key is not valid...`) for malformed tokens; callers wrap it as
 * `invalid continue token: <message>` (400).
 */
export function decodeContinueToken(token: string, keyPrefix: string): DecodedContinueToken {
  if (!/^[A-Za-z0-9_-]*$/.test(token) || token.length % 4 === 1) {
    const position = token.search(/[^A-Za-z0-9_-]/);
    throw new Error(`${genericInvalidKey}: illegal base64 data at input byte ${position < 0 ? token.length - 1 : position}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (error) {
    throw new Error(`${genericInvalidKey}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${genericInvalidKey}: token is not a JSON object`);
  }
  const { v, rv, start } = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (v !== 'meta.k8s.io/v1') throw new Error(`${unrecognizedVersion} ${typeof v === 'string' ? v : ''}`.trimEnd());
  if (rv !== undefined && (typeof rv !== 'number' || !Number.isInteger(rv))) {
    throw new Error(`${genericInvalidKey}: json: cannot unmarshal ${typeof rv} into Go struct field continueToken.rv of type int64`);
  }
  if (start !== undefined && typeof start !== 'string') {
    throw new Error(`${genericInvalidKey}: json: cannot unmarshal ${typeof start} into Go struct field continueToken.start of type string`);
  }
  if (!rv) throw new Error(invalidStartRV);
  if (!start) throw new Error(emptyStartKey);
  // Defend against path traversal: the start key must not climb out of the listed directory.
  const rooted = start.startsWith('/') ? start : `/${start}`;
  const cleaned = cleanPath(rooted);
  if (cleaned !== rooted) throw new Error(`${genericInvalidKey}: ${start}`);
  return { key: keyPrefix + cleaned.slice(1), resourceVersion: rv };
}

/** Go's `path.Clean` for rooted paths: collapses `//`, `.` and `..`, and drops a trailing slash. */
function cleanPath(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}
