import { Type, kindSchema, type FieldError, type KindDefinition, type KubeObject, withFieldDescriptions } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';
import { leaseDescription, leaseDescriptions } from './coordination-descriptions.js';

const microTime = () => Type.Optional(Type.String({ format: 'date-time' }));

const leaseSchema = withFieldDescriptions(
  kindSchema({
    group: 'coordination.k8s.io',
    version: 'v1',
    kind: 'Lease',
    description: leaseDescription,
    spec: Type.Object({
      holderIdentity: Type.Optional(Type.String()),
      leaseDurationSeconds: Type.Optional(Type.Integer({ format: 'int32' })),
      acquireTime: microTime(),
      renewTime: microTime(),
      leaseTransitions: Type.Optional(Type.Integer({ format: 'int32' })),
      strategy: Type.Optional(Type.String()),
      preferredHolder: Type.Optional(Type.String()),
    }),
  }),
  leaseDescriptions,
);

/** Upstream's `ValidateLeaseSpec`. */
export function validateLeaseSpec(object: KubeObject): FieldError[] {
  const spec = (object.spec ?? {}) as { leaseDurationSeconds?: number; leaseTransitions?: number; strategy?: string; preferredHolder?: string };
  const errors: FieldError[] = [];
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds <= 0)
    errors.push({ field: 'spec.leaseDurationSeconds', type: 'FieldValueInvalid', value: spec.leaseDurationSeconds, detail: 'must be greater than 0' });
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions < 0)
    errors.push({ field: 'spec.leaseTransitions', type: 'FieldValueInvalid', value: spec.leaseTransitions, detail: 'must be greater than or equal to 0' });
  if (spec.preferredHolder && !spec.strategy)
    errors.push({ field: 'spec.preferredHolder', type: 'FieldValueForbidden', detail: 'may only be specified if `strategy` is defined' });
  return errors;
}

/** coordination.k8s.io/v1 Lease. */
export const coordinationKinds: KindDefinition[] = [
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', schema: leaseSchema },
];

export const coordinationResources: ResourceDefinition[] = [
  {
    group: 'coordination.k8s.io',
    resource: 'leases',
    returnDeletedObject: false,
    tracksGeneration: false,
    kind: 'Lease',
    namespaced: true,
    versions: ['v1'],
    printerColumns: [
      { name: 'Holder', type: 'string', jsonPath: '.spec.holderIdentity' },
      { name: 'Renewed', type: 'date', jsonPath: '.spec.renewTime', priority: 1 },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    strategy: { allowCreateOnUpdate: true, validate: validateLeaseSpec, validateUpdate: validateLeaseSpec },
  },
];
