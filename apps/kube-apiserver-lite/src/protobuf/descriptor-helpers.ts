/** Short local names for the apimachinery descriptor builders, shared by the kind descriptor files. */
export {
  protobufField as field,
  protobufRepeatedField as repeatedField,
  protobufMapField as mapField,
  protobufMessage as message,
} from '@kapi/apimachinery';

/** Field option for pointer fields and JSON fields without `omitempty`: zero values are kept. */
export const keep = { keepZero: true } as const;
