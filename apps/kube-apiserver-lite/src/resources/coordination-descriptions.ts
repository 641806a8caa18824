import { type FieldDescriptions } from '@kapi/apimachinery';

// The descriptions upstream publishes for coordination.k8s.io/v1 Lease (kubernetes/kubernetes
// api/openapi-spec/v3/apis__coordination.k8s.io__v1_openapi.json), verbatim; field paths as in
// field-descriptions.ts. spec.strategy and spec.preferredHolder are not in the version of the
// document these were taken from, so they have none.

export const leaseDescription = 'Lease defines a lease concept.';

export const leaseDescriptions: FieldDescriptions = {
  spec: 'Specification of the Lease. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status',
  'spec.acquireTime': 'acquireTime is a time when the current lease was acquired.',
  'spec.holderIdentity': 'holderIdentity contains the identity of the holder of a current lease.',
  'spec.leaseDurationSeconds':
    'leaseDurationSeconds is a duration that candidates for a lease need to wait to force acquire it. This is measure against time of last observed renewTime.',
  'spec.leaseTransitions': 'leaseTransitions is the number of transitions of a lease between holders.',
  'spec.renewTime': 'renewTime is a time when the current holder of a lease has last updated the lease.',
};
