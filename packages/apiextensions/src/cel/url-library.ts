import { CelScalar, celFunc, celMethod, type CelFunc, type CelInput } from '@bufbuild/cel';
import { opaqueText, opaqueValue, requireOpaque } from './opaque-value.js';

const { DYN, STRING, BOOL } = CelScalar;

/** The parts of a URL as Go's url.URL keeps them. */
interface URLParts {
  scheme: string;
  host: string;
  path: string;
  query: string;
}

const ABSOLUTE = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#.*)?$/;
const PATH = /^(\/[^?#]*)(?:\?([^#]*))?(?:#.*)?$/;

/** Parses as Go's url.ParseRequestURI: an absolute URL or an absolute path; undefined otherwise. */
function parseURL(text: string): URLParts | undefined {
  const absolute = ABSOLUTE.exec(text);
  if (absolute) {
    try {
      new URL(text);
    } catch {
      return undefined;
    }
    const authority = absolute[2] ?? '';
    return { scheme: absolute[1] ?? '', host: authority.slice(authority.lastIndexOf('@') + 1), path: absolute[3] ?? '', query: absolute[4] ?? '' };
  }
  const path = PATH.exec(text);
  return path ? { scheme: '', host: '', path: path[1] ?? '', query: path[2] ?? '' } : undefined;
}

function url(text: string): URLParts {
  const parts = parseURL(text);
  if (!parts) throw new Error(`URL parse error during conversion from string: parse ${JSON.stringify(text)}: invalid URI for request`);
  return parts;
}

function partsOf(value: unknown, operation: string): URLParts {
  return url(requireOpaque('url', value as never, operation));
}

/** Host without port (IPv6 without brackets). */
function hostname(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

function port(host: string): string {
  const colon = host.lastIndexOf(':');
  return colon < 0 || host.slice(colon).includes(']') ? '' : host.slice(colon + 1);
}

function queryMap(query: string): CelInput {
  const result = new Map<string, string[]>();
  for (const [key, value] of new URLSearchParams(query)) result.set(key, [...(result.get(key) ?? []), value]);
  return result as unknown as CelInput;
}

function getter(name: string, read: (parts: URLParts) => string): CelFunc {
  return celMethod(name, DYN, [], STRING, function () {
    return read(partsOf(this, name));
  });
}

/** `string(url)`. */
export function urlToString(value: unknown): string | undefined {
  return opaqueText('url', value as never);
}

/** Kubernetes' URL CEL library (`url()`, `isURL`, `getScheme()`, `getHost()`, `getHostname()`, `getPort()`, `getEscapedPath()`, `getQuery()`). */
export const urlLibrary: CelFunc[] = [
  celFunc('url', [STRING], DYN, (text) => {
    url(text);
    return opaqueValue('url', text);
  }),
  celFunc('isURL', [STRING], BOOL, (text) => parseURL(text) !== undefined),
  getter('getScheme', (parts) => parts.scheme),
  getter('getHost', (parts) => parts.host),
  getter('getHostname', (parts) => hostname(parts.host)),
  getter('getPort', (parts) => port(parts.host)),
  getter('getEscapedPath', (parts) => parts.path),
  celMethod('getQuery', DYN, [], DYN, function () {
    return queryMap(partsOf(this, 'getQuery').query);
  }),
];
