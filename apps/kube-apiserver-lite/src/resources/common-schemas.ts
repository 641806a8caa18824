import { Type } from '@kapi/apimachinery';

/** core/v1 ObjectReference. */
export const objectReferenceSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    namespace: Type.Optional(Type.String()),
    uid: Type.Optional(Type.String()),
    resourceVersion: Type.Optional(Type.String()),
    fieldPath: Type.Optional(Type.String()),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);

/** core/v1 LocalObjectReference. */
export const localObjectReferenceSchema = Type.Object({ name: Type.Optional(Type.String()) }, { 'x-kubernetes-map-type': 'atomic' });

/** metav1.Condition, keyed by type in lists. */
export const conditionSchema = Type.Object({
  type: Type.String(),
  status: Type.String({ enum: ['True', 'False', 'Unknown'] }),
  observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
  lastTransitionTime: Type.Optional(Type.String({ format: 'date-time' })),
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});

/** A list of conditions merged by type (strategic merge patch and list-map semantics). */
export const conditionsSchema = () =>
  Type.Optional(
    Type.Array(conditionSchema, {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      'x-kubernetes-patch-merge-key': 'type',
      'x-kubernetes-patch-strategy': 'merge',
    }),
  );

/** map[string]string. */
export const stringMapSchema = () => Type.Optional(Type.Record(Type.String(), Type.String()));
