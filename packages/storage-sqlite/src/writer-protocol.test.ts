import { describe, expect, it } from 'vitest';
import { packWrites, unpackWrites } from './writer-protocol.js';
import type { WriteRequest } from './write-request.js';

describe('packWrites / unpackWrites', () => {
  it('round-trips every field of a batch through one value buffer and one number array', () => {
    const requests: WriteRequest[] = [
      { kind: 'create', key: '/a', value: Buffer.from('first'), expectedModRevision: 0 },
      { kind: 'update', key: '/ü/b', value: Buffer.from('second value'), expectedModRevision: 41, ttlSeconds: 30 },
      { kind: 'delete', key: '/c', value: Buffer.alloc(0), expectedModRevision: 7, condition: { key: '/lock', value: 'me' } },
    ];
    const { packed, transfer } = packWrites(requests);
    expect(transfer).toEqual([packed.values, packed.numbers.buffer]);
    const unpacked = unpackWrites(structuredClone(packed, { transfer }));
    expect(unpacked.map((request) => ({ ...request, value: request.value.toString() }))).toEqual(
      requests.map((request) => ({ ...request, value: request.value.toString() })),
    );
    expect(Buffer.isBuffer(unpacked[0]?.value)).toBe(true);
  });
});
