export {
  apiserverIdentity,
  base32LowerNoPadding,
  IDENTITY_LABEL,
  HOSTNAME_LABEL,
  IDENTITY_LEASE_NAMESPACE,
  LEASE_CONTROLLER_HOOK,
  LEASE_GC_HOOK,
} from './apiserver-identity.js';
export type { Clock } from './clock.js';
export { realClock, FakeClock } from './clock.js';
export type { LeaseControllerOptions } from './lease-controller.js';
export { LeaseController } from './lease-controller.js';
export type { LeaseGarbageCollectorOptions } from './lease-garbage-collector.js';
export { LeaseGarbageCollector, isLeaseExpired } from './lease-garbage-collector.js';
