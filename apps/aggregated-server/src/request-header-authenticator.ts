import type { IncomingMessage } from 'node:http';
import type { Authenticator, UserInfo } from '@kapi/filters';
import type { RequestHeaderConfig } from './authentication-config.js';
import { bundleFingerprints, subjectField, verifiedPeer } from './verified-peer.js';

/**
 * Every header's values, each line apart (node joins repeated unknown headers with ', ' in `headers`):
 * node's `headersDistinct` over HTTP/1.1, built from the raw name/value pairs over HTTP/2, whose request
 * object has none.
 */
function distinctHeaders(request: IncomingMessage): Record<string, string[] | undefined> {
  const distinct = (request as Partial<IncomingMessage>).headersDistinct;
  if (distinct) return distinct;
  const built: Record<string, string[]> = {};
  const raw = request.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) (built[(raw[index] as string).toLowerCase()] ??= []).push(raw[index + 1] as string);
  return built;
}

/** Every value of a header, each line apart. */
function headerValues(request: IncomingMessage, name: string): string[] {
  return distinctHeaders(request)[name.toLowerCase()] ?? [];
}

/**
 * Front-proxy authentication (upstream's request-header authenticator behind an x509 verifier): the
 * identity headers count only on a connection whose client certificate chains to the request-header CA
 * and whose CN is allowed. The user is the first non-empty user header, the UID the first non-empty UID
 * header (upstream's RemoteRequestHeaderUID), groups every group header value,
 * extras the `<prefix><key>` headers (key lower-cased and %-unescaped). The headers are removed after.
 */
export function requestHeaderAuthenticator(config: RequestHeaderConfig): Authenticator {
  const roots = bundleFingerprints(config.clientCA);
  const allowed = new Set(config.allowedNames);
  const prefixes = config.extraHeaderPrefixes.map((prefix) => prefix.toLowerCase());
  return (request) => {
    const user = firstValue(request, config.usernameHeaders);
    if (user === undefined) return undefined;
    const peer = verifiedPeer(request);
    if (!peer || !roots.has(peer.root)) return undefined;
    const cn = subjectField(peer.certificate, 'CN')[0] ?? '';
    if (allowed.size > 0 && !allowed.has(cn)) {
      throw new Error(`x509: subject with cn=${cn} is not in the allowed list`);
    }
    const uid = firstValue(request, config.uidHeaders);
    const groups = config.groupHeaders.flatMap((header) => headerValues(request, header));
    const extra: Record<string, string[]> = {};
    for (const [header, values] of Object.entries(distinctHeaders(request))) {
      const prefix = prefixes.find((candidate) => header.startsWith(candidate));
      if (!prefix || values === undefined) continue;
      const key = unescapeKey(header.slice(prefix.length)).toLowerCase();
      (extra[key] ??= []).push(...values);
      delete request.headers[header];
    }
    for (const header of [...config.usernameHeaders, ...config.uidHeaders, ...config.groupHeaders]) delete request.headers[header.toLowerCase()];
    const found: UserInfo = { name: user, groups };
    if (uid !== undefined) found.uid = uid;
    if (Object.keys(extra).length > 0) found.extra = extra;
    return found;
  };
}

/** Upstream's `unescapeExtraKey`: %-unescaped, or as sent when that fails. */
function unescapeKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

function firstValue(request: IncomingMessage, headers: string[]): string | undefined {
  for (const header of headers) {
    const value = headerValues(request, header).find((candidate) => candidate !== '');
    if (value !== undefined) return value;
  }
  return undefined;
}
