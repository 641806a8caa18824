import { Type, kindSchema, type KindDefinition } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';

const microTime = () => Type.Optional(Type.String({ format: 'date-time' }));

const leaseSchema = kindSchema({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  spec: Type.Object({
    holderIdentity: Type.Optional(Type.String()),
    leaseDurationSeconds: Type.Optional(Type.Integer({ format: 'int32' })),
    acquireTime: microTime(),
    renewTime: microTime(),
    leaseTransitions: Type.Optional(Type.Integer({ format: 'int32' })),
    strategy: Type.Optional(Type.String()),
    preferredHolder: Type.Optional(Type.String()),
  }),
});

/** coordination.k8s.io/v1 Lease. */
export const coordinationKinds: KindDefinition[] = [
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', schema: leaseSchema },
];

export const coordinationResources: ResourceDefinition[] = [
  {
    group: 'coordination.k8s.io',
    resource: 'leases',
    tracksGeneration: false,
    kind: 'Lease',
    namespaced: true,
    versions: ['v1'],
    printerColumns: [
      { name: 'Holder', type: 'string', jsonPath: '.spec.holderIdentity' },
      { name: 'Renewed', type: 'date', jsonPath: '.spec.renewTime', priority: 1 },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    strategy: { allowCreateOnUpdate: true },
  },
];
