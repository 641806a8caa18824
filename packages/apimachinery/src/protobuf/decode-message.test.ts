import { describe, expect, it } from 'vitest';
import { decodeProtobufMessage, formatProtobufTimestamp } from './decode-message.js';
import {
  protobufField as field,
  protobufMapField as mapField,
  protobufMessage as message,
  protobufRepeatedField as repeatedField,
  type ProtobufMessageDescriptor,
} from './message-descriptor.js';
import { objectMetaDescriptor } from './meta-descriptors.js';
import { ProtobufWireError, WireType } from './wire-reader.js';
import { bytesField, mapEntry, stringField, tag, toBytes, varint, varintField } from './test-wire-writer.js';

const scalars = message('Scalars', {
  1: field('text', 'string'),
  2: field('flag', 'bool'),
  3: field('small', 'int32'),
  4: field('large', 'int64'),
  5: field('blob', 'bytes'),
  6: field('pointerFlag', 'bool', { keepZero: true }),
  7: field('required', 'string', { keepZero: true }),
});

describe('decodeProtobufMessage', () => {
  it('decodes scalars to their JSON forms', () => {
    const bytes = toBytes(
      stringField(1, 'hello'),
      varintField(2, true),
      varintField(3, -7),
      varintField(4, 2 ** 40),
      bytesField(5, [0, 1, 2, 250]),
    );
    expect(decodeProtobufMessage(bytes, scalars)).toEqual({
      text: 'hello',
      flag: true,
      small: -7,
      large: 2 ** 40,
      blob: Buffer.from([0, 1, 2, 250]).toString('base64'),
    });
  });

  it('drops zero values like omitempty unless the field keeps them', () => {
    const bytes = toBytes(
      stringField(1, ''),
      varintField(2, false),
      varintField(3, 0),
      varintField(6, false),
      stringField(7, ''),
    );
    expect(decodeProtobufMessage(bytes, scalars)).toEqual({ pointerFlag: false, required: '' });
  });

  it('keeps the last value of a singular field and skips unknown field numbers', () => {
    const bytes = toBytes(
      stringField(1, 'first'),
      stringField(99, 'unknown'),
      varintField(98, 5),
      tag(97, WireType.fixed32),
      [1, 2, 3, 4],
      stringField(1, 'second'),
    );
    expect(decodeProtobufMessage(bytes, scalars)).toEqual({ text: 'second' });
  });

  it('decodes repeated fields, packed and unpacked', () => {
    const descriptor = message('Lists', {
      1: repeatedField('names', 'string'),
      2: repeatedField('numbers', 'int32'),
    });
    const packed = bytesField(2, [...varint(1), ...varint(300), ...varint(-2)]);
    const bytes = toBytes(stringField(1, 'a'), stringField(1, ''), varintField(2, 9), packed);
    expect(decodeProtobufMessage(bytes, descriptor)).toEqual({ names: ['a', ''], numbers: [9, 1, 300, -2] });
  });

  it('decodes map<string,string> and map<string,bytes>, including entries without a value', () => {
    const descriptor = message('Maps', { 1: mapField('labels', 'string'), 2: mapField('binary', 'bytes') });
    const bytes = toBytes(
      mapEntry(1, 'app', stringField(2, 'web')),
      mapEntry(1, 'empty', []),
      mapEntry(2, 'key', bytesField(2, new TextEncoder().encode('secret'))),
    );
    expect(decodeProtobufMessage(bytes, descriptor)).toEqual({
      labels: { app: 'web', empty: '' },
      binary: { key: Buffer.from('secret').toString('base64') },
    });
  });

  it('decodes nested messages, merging repeated occurrences, and recursive thunks', () => {
    const tree: ProtobufMessageDescriptor = message('Tree', {
      1: field('name', 'string'),
      2: repeatedField('children', () => tree),
      3: field('inner', message('Inner', { 1: field('a', 'string'), 2: field('b', 'string') })),
    });
    const bytes = toBytes(
      stringField(1, 'root'),
      bytesField(2, stringField(1, 'leaf')),
      bytesField(3, stringField(1, 'x')),
      bytesField(3, stringField(2, 'y')),
    );
    expect(decodeProtobufMessage(bytes, tree)).toEqual({
      name: 'root',
      children: [{ name: 'leaf' }],
      inner: { a: 'x', b: 'y' },
    });
  });

  it('keeps empty nested messages (Go always emits struct fields)', () => {
    const descriptor = message('Outer', { 2: field('spec', message('Spec', { 1: field('a', 'string') })) });
    expect(decodeProtobufMessage(toBytes(bytesField(2, [])), descriptor)).toEqual({ spec: {} });
  });

  it('decodes Time and MicroTime to RFC3339, and an empty Time as the zero time', () => {
    const descriptor = message('Times', {
      1: field('created', 'time'),
      2: field('renewed', 'microTime'),
      3: field('zero', 'time'),
      4: field('kept', 'time', { keepZero: true }),
    });
    const bytes = toBytes(
      bytesField(1, [...varintField(1, 1_700_000_000), ...varintField(2, 999_000_000)]),
      bytesField(2, [...varintField(1, 1_700_000_000), ...varintField(2, 123_456_789)]),
      bytesField(3, []),
      bytesField(4, []),
    );
    expect(decodeProtobufMessage(bytes, descriptor)).toEqual({
      created: '2023-11-14T22:13:20Z',
      renewed: '2023-11-14T22:13:20.123456Z',
      kept: null,
    });
    expect(formatProtobufTimestamp(0, 5000, true)).toBe('1970-01-01T00:00:00.000005Z');
  });

  it('decodes IntOrString, Quantity and RawExtension', () => {
    const descriptor = message('Wrappers', {
      1: field('port', 'intOrString'),
      2: field('target', 'intOrString'),
      3: field('cpu', 'quantity'),
      4: field('extension', 'rawExtension'),
    });
    const bytes = toBytes(
      bytesField(1, [...varintField(1, 0), ...varintField(2, 8080)]),
      bytesField(2, [...varintField(1, 1), ...stringField(3, 'http')]),
      bytesField(3, stringField(1, '500m')),
      bytesField(4, bytesField(1, new TextEncoder().encode('{"kind":"Pod","spec":{"n":1}}'))),
    );
    expect(decodeProtobufMessage(bytes, descriptor)).toEqual({
      port: 8080,
      target: 'http',
      cpu: '500m',
      extension: { kind: 'Pod', spec: { n: 1 } },
    });
  });

  it('unwraps single-field wrapper messages (ExtraValue)', () => {
    const extraValue = message('ExtraValue', { 1: repeatedField('items', 'string') }, { unwrap: 1 });
    const descriptor = message('Spec', { 5: mapField('extra', extraValue) });
    const bytes = toBytes(
      mapEntry(5, 'scopes', bytesField(2, [...stringField(1, 'a'), ...stringField(1, 'b')])),
      mapEntry(5, 'none', []),
    );
    expect(decodeProtobufMessage(bytes, descriptor)).toEqual({ extra: { scopes: ['a', 'b'], none: [] } });
  });

  it('decodes ObjectMeta with managedFields (fieldsV1 as parsed JSON) and ownerReferences', () => {
    const fieldsV1 = new TextEncoder().encode('{"f:data":{"f:a":{}}}');
    const bytes = toBytes(
      stringField(1, 'x'),
      stringField(2, ''),
      stringField(3, 'default'),
      varintField(7, 0),
      bytesField(8, []),
      varintField(10, 0),
      mapEntry(11, 'app', stringField(2, 'web')),
      bytesField(13, [
        ...stringField(5, 'v1'),
        ...stringField(1, 'ConfigMap'),
        ...stringField(3, 'owner'),
        ...stringField(4, 'u-1'),
        ...varintField(6, true),
      ]),
      stringField(14, 'example.com/finalizer'),
      bytesField(17, [
        ...stringField(1, 'kubectl'),
        ...stringField(2, 'Update'),
        ...stringField(3, 'v1'),
        ...bytesField(4, varintField(1, 1_700_000_000)),
        ...stringField(6, 'FieldsV1'),
        ...bytesField(7, bytesField(1, fieldsV1)),
        ...stringField(8, ''),
      ]),
    );
    expect(decodeProtobufMessage(bytes, objectMetaDescriptor)).toEqual({
      name: 'x',
      namespace: 'default',
      deletionGracePeriodSeconds: 0,
      labels: { app: 'web' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u-1', controller: true }],
      finalizers: ['example.com/finalizer'],
      managedFields: [
        {
          manager: 'kubectl',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2023-11-14T22:13:20Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { 'f:a': {} } },
        },
      ],
    });
  });

  it('rejects wire types that do not match the descriptor and bad embedded JSON', () => {
    expect(() => decodeProtobufMessage(toBytes(varintField(1, 5)), scalars)).toThrow(ProtobufWireError);
    expect(() => decodeProtobufMessage(toBytes(varintField(1, 5)), scalars)).toThrow(
      /Scalars\.text: wire type 0/,
    );
    expect(() => decodeProtobufMessage(toBytes(stringField(2, 'x')), scalars)).toThrow(/Scalars\.flag/);
    const raw = message('Raw', { 1: field('object', 'rawExtension') });
    expect(() => decodeProtobufMessage(toBytes(bytesField(1, stringField(1, '{nope'))), raw)).toThrow(
      /not JSON/,
    );
  });

  it('rejects truncated nested messages', () => {
    const bytes = toBytes(bytesField(13, stringField(5, 'v1')));
    expect(() => decodeProtobufMessage(bytes.subarray(0, bytes.length - 1), objectMetaDescriptor)).toThrow(
      ProtobufWireError,
    );
  });
});
