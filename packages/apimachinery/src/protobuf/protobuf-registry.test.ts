import { describe, expect, it } from 'vitest';
import { StatusError } from '../status-error.js';
import { decodeKubernetesEnvelope, hasKubernetesMagic, isProtobufMediaType } from './kubernetes-envelope.js';
import { protobufField, protobufMapField, protobufMessage } from './message-descriptor.js';
import { objectMetaDescriptor } from './meta-descriptors.js';
import { ProtobufRegistry } from './protobuf-registry.js';
import { bytesField, envelope, mapEntry, stringField, toBytes, varintField } from './test-wire-writer.js';

const configMap = protobufMessage('ConfigMap', {
  1: protobufField('metadata', objectMetaDescriptor),
  2: protobufMapField('data', 'string'),
});

function decodeError(run: () => unknown): StatusError {
  try {
    run();
  } catch (error) {
    if (StatusError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a StatusError');
}

describe('isProtobufMediaType', () => {
  it('matches the Kubernetes protobuf media type with or without parameters', () => {
    expect(isProtobufMediaType('application/vnd.kubernetes.protobuf')).toBe(true);
    expect(isProtobufMediaType('Application/VND.Kubernetes.Protobuf; charset=binary')).toBe(true);
    expect(isProtobufMediaType('application/vnd.kubernetes.protobuf;stream=watch')).toBe(true);
    expect(isProtobufMediaType('application/json')).toBe(false);
    expect(isProtobufMediaType('application/vnd.kubernetes.protobuf+json')).toBe(false);
    expect(isProtobufMediaType(undefined)).toBe(false);
    expect(isProtobufMediaType('')).toBe(false);
  });
});

describe('decodeKubernetesEnvelope', () => {
  it('reads the runtime.Unknown fields after the magic prefix', () => {
    const bytes = envelope('v1', 'ConfigMap', stringField(1, 'raw'));
    expect(hasKubernetesMagic(bytes)).toBe(true);
    const decoded = decodeKubernetesEnvelope(bytes);
    expect(decoded).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      contentEncoding: '',
      contentType: '',
    });
    expect([...(decoded?.raw ?? [])]).toEqual(stringField(1, 'raw'));
  });

  it('returns undefined without the magic prefix', () => {
    expect(decodeKubernetesEnvelope(new TextEncoder().encode('{"kind":"x"}'))).toBeUndefined();
    expect(hasKubernetesMagic(Uint8Array.of(0x6b, 0x38))).toBe(false);
  });
});

describe('ProtobufRegistry', () => {
  const registry = new ProtobufRegistry().register('v1', 'ConfigMap', configMap);

  it('decodes a registered kind, taking apiVersion and kind from the envelope', () => {
    const raw = [
      ...bytesField(1, [...stringField(1, 'settings'), ...stringField(3, 'default')]),
      ...mapEntry(2, 'a', stringField(2, 'b')),
    ];
    expect(registry.decode(envelope('v1', 'ConfigMap', raw))).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'default' },
      data: { a: 'b' },
    });
  });

  it('decodes DeleteOptions under any apiVersion', () => {
    const raw = [
      ...varintField(1, 0),
      ...bytesField(2, stringField(1, 'uid-1')),
      ...stringField(4, 'Foreground'),
      ...stringField(5, 'All'),
    ];
    expect(registry.decode(envelope('rbac.authorization.k8s.io/v1', 'DeleteOptions', raw))).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
      preconditions: { uid: 'uid-1' },
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
    });
    expect(new ProtobufRegistry({ includeMetaKinds: false }).has('v1', 'DeleteOptions')).toBe(false);
  });

  it('decodes JSON embedded in the envelope when contentType says so', () => {
    const bytes = toBytes(
      [0x6b, 0x38, 0x73, 0x00],
      bytesField(1, [...stringField(1, 'v1'), ...stringField(2, 'ConfigMap')]),
      bytesField(2, new TextEncoder().encode('{"metadata":{"name":"j"},"data":{"x":"y"}}')),
      stringField(4, 'application/json'),
    );
    expect(registry.decode(bytes)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'j' },
      data: { x: 'y' },
    });
  });

  it('rejects a body without the magic prefix with a 400', () => {
    const error = decodeError(() => registry.decode(new TextEncoder().encode('{}')));
    expect(error.code).toBe(400);
    expect(error.reason).toBe('BadRequest');
    expect(error.message).toBe(
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    );
  });

  it('rejects unregistered kinds with a 400 naming the kind and version', () => {
    const error = decodeError(() => registry.decode(envelope('apps/v1', 'Deployment', [])));
    expect(error.code).toBe(400);
    expect(error.message).toBe(
      'no kind "Deployment" is registered for version "apps/v1" in the protobuf decoder',
    );
  });

  it('rejects an envelope without a kind', () => {
    const error = decodeError(() => registry.decode(envelope('v1', '', [])));
    expect(error.message).toMatch(/'Kind' is missing/);
  });

  it('rejects malformed bytes with a 400 instead of crashing', () => {
    const good = envelope('v1', 'ConfigMap', bytesField(1, stringField(1, 'settings')));
    const truncated = good.subarray(0, good.length - 6);
    const error = decodeError(() => registry.decode(truncated));
    expect(error.code).toBe(400);
    expect(error.message).toMatch(/^unable to decode protobuf body: /);
    const wrongType = envelope('v1', 'ConfigMap', varintField(1, 3));
    expect(decodeError(() => registry.decode(wrongType)).message).toMatch(/ConfigMap\.metadata: wire type 0/);
  });

  it('rejects content encodings it cannot undo', () => {
    const bytes = toBytes(
      [0x6b, 0x38, 0x73, 0x00],
      bytesField(1, [...stringField(1, 'v1'), ...stringField(2, 'ConfigMap')]),
      stringField(3, 'gzip'),
    );
    expect(decodeError(() => registry.decode(bytes)).message).toBe(
      'unsupported protobuf content encoding "gzip"',
    );
  });
});
