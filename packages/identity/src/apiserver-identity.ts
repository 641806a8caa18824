import { createHash } from 'node:crypto';

const base32Alphabet = 'abcdefghijklmnopqrstuvwxyz234567';

/** RFC 4648 base32 (standard alphabet), lower case, no padding. */
export function base32LowerNoPadding(bytes: Uint8Array): string {
  let output = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      output += base32Alphabet[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) output += base32Alphabet[(buffer << (5 - bits)) & 31];
  return output;
}

function lengthPrefixed(text: string): Buffer {
  const data = Buffer.from(text, 'utf8');
  const prefix = Buffer.alloc(2);
  prefix.writeUInt16BE(data.length);
  return Buffer.concat([prefix, data]);
}

/**
 * The apiserver identity (and its Lease name): `apiserver-` + lower-case unpadded base32 of the first 16 bytes
 * of SHA-256 over the uint16-length-prefixed hostname followed by the uint16-length-prefixed component
 * (`kube-apiserver`). KEP-1965; `node1` gives `apiserver-hbz46noag6fulempxd2cbk6bvq`.
 */
export function apiserverIdentity(hostname: string, component = 'kube-apiserver'): string {
  const digest = createHash('sha256').update(lengthPrefixed(hostname)).update(lengthPrefixed(component)).digest();
  return `apiserver-${base32LowerNoPadding(digest.subarray(0, 16))}`;
}

/** The label every identity lease carries, with the component as value. */
export const IDENTITY_LABEL = 'apiserver.kubernetes.io/identity';
/** The hostname label of identity leases. */
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';
/** Namespace of identity leases. */
export const IDENTITY_LEASE_NAMESPACE = 'kube-system';
/** Post-start hook names (upstream). */
export const LEASE_CONTROLLER_HOOK = 'start-kube-apiserver-identity-lease-controller';
export const LEASE_GC_HOOK = 'start-kube-apiserver-identity-lease-garbage-collector';
