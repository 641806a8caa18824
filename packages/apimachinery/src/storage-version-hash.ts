import { createHash } from 'node:crypto';

/**
 * The discovery `storageVersionHash` of a storage group/version/kind: standard base64 of the first 8 bytes
 * of sha256(`group/version/kind`). The core group is `''`, so its input starts with `/`.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  const digest = createHash('sha256').update(`${group}/${version}/${kind}`).digest();
  return digest.subarray(0, 8).toString('base64');
}
