/**
 * Descriptors that tell the protobuf decoder how a Kubernetes message maps to its JSON shape:
 * field number -> JSON name + value kind. Field numbers come from upstream's generated.proto files.
 */

/**
 * Scalar and well-known value kinds.
 * - `string`, `bool`, `int32`, `int64`: as in protobuf (integers become JS numbers).
 * - `bytes`: base64 text, as Kubernetes JSON renders `[]byte`.
 * - `time`: metav1.Time {seconds=1, nanos=2} -> RFC3339 with whole seconds (`2006-01-02T15:04:05Z`).
 * - `microTime`: metav1.MicroTime -> RFC3339 with 6 fractional digits.
 * - `intOrString`: intstr.IntOrString {type=1, intVal=2, strVal=3} -> number or string.
 * - `quantity`: resource.Quantity {string=1} -> its string.
 * - `rawExtension`: runtime.RawExtension / metav1.FieldsV1 {raw=1} -> the parsed JSON value.
 */
export type ProtobufScalarType =
  | 'string'
  | 'bytes'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'time'
  | 'microTime'
  | 'intOrString'
  | 'quantity'
  | 'rawExtension';

/** A field's value kind: a scalar, a nested message, or a thunk for a nested message (recursive types). */
export type ProtobufFieldType =
  ProtobufScalarType | ProtobufMessageDescriptor | (() => ProtobufMessageDescriptor);

/** How one field number maps to JSON. */
export interface ProtobufFieldDescriptor {
  /** The JSON property name. */
  name: string;
  /** The value kind; for maps, the kind of the map's values (keys are always strings). */
  type: ProtobufFieldType;
  /** A `repeated` field: a JSON array (packed scalars are accepted too). */
  repeated?: boolean;
  /** A `map<string, V>` field (repeated entry messages with key = 1, value = 2): a JSON object. */
  map?: boolean;
  /**
   * Keep zero values ("", 0, false, a zero time as null) when the field is present on the wire.
   * Set it for pointer fields (`*bool`, `*int32`) and for JSON fields without `omitempty`;
   * other scalar zero values are dropped, as `omitempty` does in Go's JSON encoding.
   */
  keepZero?: boolean;
}

/** A protobuf message: its fields by number. Unknown field numbers are skipped. */
export interface ProtobufMessageDescriptor {
  /** Message name, used in error messages (`ObjectMeta`). */
  name: string;
  /** Fields by protobuf field number. */
  fields: Readonly<Record<number, ProtobufFieldDescriptor>>;
  /**
   * When set, the message's JSON form is the value of this one field (Kubernetes wraps some
   * slices in a message for protobuf, e.g. `ExtraValue { repeated string items = 1 }` is a JSON array).
   */
  unwrap?: number;
}

/** Options for `protobufField()`. */
export interface ProtobufFieldOptions {
  /** See `ProtobufFieldDescriptor.keepZero`. */
  keepZero?: boolean;
}

/** A singular field. */
export function protobufField(
  name: string,
  type: ProtobufFieldType,
  options: ProtobufFieldOptions = {},
): ProtobufFieldDescriptor {
  return options.keepZero ? { name, type, keepZero: true } : { name, type };
}

/** A repeated field (JSON array). */
export function protobufRepeatedField(name: string, type: ProtobufFieldType): ProtobufFieldDescriptor {
  return { name, type, repeated: true };
}

/** A `map<string, V>` field (JSON object); `valueType` is V. */
export function protobufMapField(name: string, valueType: ProtobufFieldType): ProtobufFieldDescriptor {
  return { name, type: valueType, map: true };
}

/** Builds a message descriptor. */
export function protobufMessage(
  name: string,
  fields: Record<number, ProtobufFieldDescriptor>,
  options: { unwrap?: number } = {},
): ProtobufMessageDescriptor {
  return options.unwrap === undefined ? { name, fields } : { name, fields, unwrap: options.unwrap };
}
