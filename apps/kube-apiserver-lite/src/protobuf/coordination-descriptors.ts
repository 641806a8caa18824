/**
 * Protobuf descriptors of coordination.k8s.io/v1.
 * Field numbers from k8s.io/api/coordination/v1/generated.proto.
 */
import { objectMetaDescriptor, type ProtobufMessageDescriptor } from '@kapi/apimachinery';
import { field, keep, message } from './descriptor-helpers.js';

/** coordination/v1 LeaseSpec (every field is a pointer: zero values are kept). */
export const leaseSpecDescriptor: ProtobufMessageDescriptor = message('LeaseSpec', {
  1: field('holderIdentity', 'string', keep),
  2: field('leaseDurationSeconds', 'int32', keep),
  3: field('acquireTime', 'microTime', keep),
  4: field('renewTime', 'microTime', keep),
  5: field('leaseTransitions', 'int32', keep),
  6: field('strategy', 'string', keep),
  7: field('preferredHolder', 'string', keep),
});

/** coordination/v1 Lease. */
export const leaseDescriptor: ProtobufMessageDescriptor = message('Lease', {
  1: field('metadata', objectMetaDescriptor),
  2: field('spec', leaseSpecDescriptor),
});
