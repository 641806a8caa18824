import type {
  ProtobufFieldDescriptor,
  ProtobufFieldType,
  ProtobufMessageDescriptor,
  ProtobufScalarType,
} from './message-descriptor.js';
import { ProtobufWireError, WireReader, WireType, utf8 } from './wire-reader.js';

/** Nesting deeper than this is treated as malformed input (Kubernetes objects are shallow). */
const MAX_DEPTH = 64;

/**
 * Decodes one protobuf message into its Kubernetes JSON shape, driven by `descriptor`.
 * Proto2 semantics: absent fields stay absent, unknown field numbers are skipped,
 * a singular field seen twice keeps the last value (nested messages are merged).
 * Throws `ProtobufWireError` for malformed input.
 */
export function decodeProtobufMessage(
  bytes: Uint8Array,
  descriptor: ProtobufMessageDescriptor,
): Record<string, unknown> {
  return decodeFields(bytes, descriptor, 0);
}

function decodeFields(
  bytes: Uint8Array,
  descriptor: ProtobufMessageDescriptor,
  depth: number,
): Record<string, unknown> {
  if (depth > MAX_DEPTH) throw new ProtobufWireError(`message nesting deeper than ${MAX_DEPTH}`);
  const result: Record<string, unknown> = {};
  const reader = new WireReader(bytes);
  while (!reader.done) {
    const { fieldNumber, wireType } = reader.readTag();
    const field = descriptor.fields[fieldNumber];
    if (!field) {
      reader.skip(wireType);
      continue;
    }
    if (field.map) {
      decodeMapEntry(reader, wireType, field, descriptor, result, depth);
    } else if (field.repeated) {
      const list = (result[field.name] ??= []) as unknown[];
      if (wireType === WireType.lengthDelimited && isVarintType(field.type)) {
        const packed = new WireReader(reader.readLengthDelimited());
        while (!packed.done) list.push(readValue(packed, WireType.varint, field, descriptor, depth));
      } else {
        list.push(readValue(reader, wireType, field, descriptor, depth));
      }
    } else {
      const value = readValue(reader, wireType, field, descriptor, depth);
      const previous = result[field.name];
      if (isMessageType(field.type) && isPlainObject(value) && isPlainObject(previous)) {
        result[field.name] = { ...previous, ...value };
      } else if (field.keepZero || isMessageType(field.type) || !isZeroValue(value)) {
        result[field.name] = value;
      } else {
        delete result[field.name];
      }
    }
  }
  if (descriptor.unwrap !== undefined) {
    const inner = descriptor.fields[descriptor.unwrap];
    const value = inner ? result[inner.name] : undefined;
    return (value ?? (inner?.repeated ? [] : null)) as Record<string, unknown>;
  }
  return result;
}

function decodeMapEntry(
  reader: WireReader,
  wireType: number,
  field: ProtobufFieldDescriptor,
  parent: ProtobufMessageDescriptor,
  result: Record<string, unknown>,
  depth: number,
): void {
  expectWireType(wireType, WireType.lengthDelimited, field, parent);
  const entry = new WireReader(reader.readLengthDelimited());
  let key = '';
  let value: unknown = zeroValue(field.type, depth);
  while (!entry.done) {
    const tag = entry.readTag();
    if (tag.fieldNumber === 1) {
      expectWireType(tag.wireType, WireType.lengthDelimited, field, parent);
      key = entry.readString();
    } else if (tag.fieldNumber === 2) {
      value = readValue(entry, tag.wireType, field, parent, depth);
    } else {
      entry.skip(tag.wireType);
    }
  }
  const map = (result[field.name] ??= {}) as Record<string, unknown>;
  map[key] = value;
}

function readValue(
  reader: WireReader,
  wireType: number,
  field: ProtobufFieldDescriptor,
  parent: ProtobufMessageDescriptor,
  depth: number,
): unknown {
  const type = field.type;
  if (typeof type !== 'string') {
    expectWireType(wireType, WireType.lengthDelimited, field, parent);
    const nested = typeof type === 'function' ? type() : type;
    return decodeFields(reader.readLengthDelimited(), nested, depth + 1);
  }
  switch (type) {
    case 'string':
      expectWireType(wireType, WireType.lengthDelimited, field, parent);
      return reader.readString();
    case 'bytes':
      expectWireType(wireType, WireType.lengthDelimited, field, parent);
      return Buffer.from(reader.readLengthDelimited()).toString('base64');
    case 'bool':
      expectWireType(wireType, WireType.varint, field, parent);
      return reader.readVarint() !== 0n;
    case 'int32':
    case 'int64':
      if (wireType === WireType.fixed64) return reader.readFixed64();
      if (wireType === WireType.fixed32) return reader.readFixed32();
      expectWireType(wireType, WireType.varint, field, parent);
      return reader.readSignedVarint();
    case 'time':
    case 'microTime':
      expectWireType(wireType, WireType.lengthDelimited, field, parent);
      return decodeTimestamp(reader.readLengthDelimited(), type === 'microTime');
    case 'intOrString':
      expectWireType(wireType, WireType.lengthDelimited, field, parent);
      return decodeIntOrString(reader.readLengthDelimited());
    case 'quantity':
      expectWireType(wireType, WireType.lengthDelimited, field, parent);
      return decodeQuantity(reader.readLengthDelimited());
    case 'rawExtension':
      expectWireType(wireType, WireType.lengthDelimited, field, parent);
      return decodeRawExtension(reader.readLengthDelimited(), field, parent);
  }
}

/** metav1.Time / MicroTime {seconds = 1, nanos = 2}; an empty message is the zero time (JSON null). */
function decodeTimestamp(bytes: Uint8Array, micro: boolean): string | null {
  if (bytes.length === 0) return null;
  const reader = new WireReader(bytes);
  let seconds = 0;
  let nanos = 0;
  while (!reader.done) {
    const tag = reader.readTag();
    if (tag.fieldNumber === 1 && tag.wireType === WireType.varint) seconds = reader.readSignedVarint();
    else if (tag.fieldNumber === 2 && tag.wireType === WireType.varint) nanos = reader.readSignedVarint();
    else reader.skip(tag.wireType);
  }
  return formatProtobufTimestamp(seconds, nanos, micro);
}

/** RFC3339 in UTC: whole seconds for Time, six fractional digits for MicroTime (Go's RFC3339Micro). */
export function formatProtobufTimestamp(seconds: number, nanos: number, micro: boolean): string {
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) throw new ProtobufWireError(`timestamp ${seconds} is out of range`);
  const base = date.toISOString().slice(0, 19);
  if (!micro) return `${base}Z`;
  const micros = String(Math.floor(Math.max(0, nanos) / 1000)).padStart(6, '0');
  return `${base}.${micros}Z`;
}

/** intstr.IntOrString {type = 1 (0 int, 1 string), intVal = 2, strVal = 3}. */
function decodeIntOrString(bytes: Uint8Array): number | string {
  const reader = new WireReader(bytes);
  let kind = 0;
  let intValue = 0;
  let stringValue = '';
  while (!reader.done) {
    const tag = reader.readTag();
    if (tag.fieldNumber === 1 && tag.wireType === WireType.varint) kind = reader.readSignedVarint();
    else if (tag.fieldNumber === 2 && tag.wireType === WireType.varint) intValue = reader.readSignedVarint();
    else if (tag.fieldNumber === 3 && tag.wireType === WireType.lengthDelimited)
      stringValue = reader.readString();
    else reader.skip(tag.wireType);
  }
  return kind === 1 ? stringValue : intValue;
}

/** resource.Quantity {string = 1}. */
function decodeQuantity(bytes: Uint8Array): string {
  const reader = new WireReader(bytes);
  let text = '';
  while (!reader.done) {
    const tag = reader.readTag();
    if (tag.fieldNumber === 1 && tag.wireType === WireType.lengthDelimited) text = reader.readString();
    else reader.skip(tag.wireType);
  }
  return text === '' ? '0' : text;
}

/** runtime.RawExtension / metav1.FieldsV1 {raw = 1}: JSON bytes, returned parsed; no bytes is null. */
function decodeRawExtension(
  bytes: Uint8Array,
  field: ProtobufFieldDescriptor,
  parent: ProtobufMessageDescriptor,
): unknown {
  const reader = new WireReader(bytes);
  let raw: Uint8Array | undefined;
  while (!reader.done) {
    const tag = reader.readTag();
    if (tag.fieldNumber === 1 && tag.wireType === WireType.lengthDelimited)
      raw = reader.readLengthDelimited();
    else reader.skip(tag.wireType);
  }
  if (!raw || raw.length === 0) return null;
  try {
    return JSON.parse(utf8(raw)) as unknown;
  } catch {
    throw new ProtobufWireError(`${parent.name}.${field.name}: embedded raw data is not JSON`);
  }
}

function expectWireType(
  actual: number,
  expected: number,
  field: ProtobufFieldDescriptor,
  parent: ProtobufMessageDescriptor,
): void {
  if (actual !== expected) {
    throw new ProtobufWireError(
      `${parent.name}.${field.name}: wire type ${actual} does not match the expected wire type ${expected}`,
    );
  }
}

function isVarintType(type: ProtobufFieldType): boolean {
  return type === 'bool' || type === 'int32' || type === 'int64';
}

function isMessageType(type: ProtobufFieldType): boolean {
  return typeof type !== 'string';
}

function isZeroValue(value: unknown): boolean {
  return value === '' || value === 0 || value === false || value === null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value a map entry gets when its value field is absent (Go's zero value, rendered as JSON). */
function zeroValue(type: ProtobufFieldType, depth: number): unknown {
  if (typeof type !== 'string')
    return decodeFields(new Uint8Array(0), typeof type === 'function' ? type() : type, depth + 1);
  const zeros: Record<ProtobufScalarType, unknown> = {
    string: '',
    bytes: '',
    bool: false,
    int32: 0,
    int64: 0,
    time: null,
    microTime: null,
    intOrString: 0,
    quantity: '0',
    rawExtension: null,
  };
  return zeros[type];
}
