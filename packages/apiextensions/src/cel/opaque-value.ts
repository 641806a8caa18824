import { isCelMap, type CelInput, type CelValue } from '@bufbuild/cel';

/**
 * Kubernetes' CEL types (IP, CIDR, Quantity, URL) as the CEL implementation can carry them: a map with
 * one hidden key (`\u0000<type>`) holding the value's canonical text. Two values are equal when their
 * canonical texts are; the libraries' functions and methods recognise their own type by the key.
 */
export function opaqueValue(type: string, canonical: string): CelInput {
  return { [`\u0000${type}`]: canonical };
}

/** The canonical text of an opaque value of `type`, or undefined for anything else. */
export function opaqueText(type: string, value: CelValue | undefined): string | undefined {
  if (!isCelMap(value)) return undefined;
  const text = value.get(`\u0000${type}`);
  return typeof text === 'string' ? text : undefined;
}

/** The canonical text of an opaque value of `type`; a CEL "no such overload" error otherwise. */
export function requireOpaque(type: string, value: CelValue | undefined, operation: string): string {
  const text = opaqueText(type, value);
  if (text === undefined) throw new Error(`no such overload: ${operation} requires a ${type}`);
  return text;
}
