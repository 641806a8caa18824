import type { ConversionDefinition, KindDefinition } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';
import {
  admissionPolicyKinds,
  admissionPolicyResources,
  admissionRegistrationKinds,
  admissionRegistrationResources,
} from '@kapi/admission';
import { authorizationKinds } from './authorization.js';
import { autoscalingConversions, autoscalingKinds, autoscalingResources } from './autoscaling.js';
import { coordinationKinds, coordinationResources } from './coordination.js';
import { coreKinds, coreResources } from './core.js';
import { endpointsKind, endpointsResource } from './endpoints.js';
import { eventsV1Kinds, eventsV1Resources } from './events-v1.js';
import { rbacKinds, rbacResources } from './rbac.js';
import { serviceDiscoveryKinds, serviceDiscoveryResources } from './service-discovery.js';
import { migrationKinds, migrationResources } from './migration.js';

/** Every kind kube-apiserver-lite registers in its scheme. */
export const builtInKinds: KindDefinition[] = [
  ...coreKinds,
  ...eventsV1Kinds,
  ...coordinationKinds,
  ...rbacKinds,
  ...autoscalingKinds,
  ...authorizationKinds,
  ...serviceDiscoveryKinds,
  endpointsKind,
  ...migrationKinds,
  ...admissionRegistrationKinds,
  ...admissionPolicyKinds,
];

/** Conversions between served versions and hubs. */
export const builtInConversions: ConversionDefinition[] = [...autoscalingConversions];

/** Every persisted resource kube-apiserver-lite serves. */
export const builtInResources: ResourceDefinition[] = [
  ...coreResources,
  ...eventsV1Resources,
  ...coordinationResources,
  ...rbacResources,
  ...autoscalingResources,
  ...serviceDiscoveryResources,
  endpointsResource,
  ...migrationResources,
  ...admissionRegistrationResources,
  ...admissionPolicyResources,
];

export { bootstrapRbacObjects } from './rbac.js';
export { authorizationResources } from './authorization.js';
export { hpaV1ToV2, hpaV2ToV1, hpaAnnotations } from './autoscaling.js';
