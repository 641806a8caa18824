/**
 * @kapi/admission: dynamic admission for kapi servers, as k8s.io/apiserver's admission plugins.
 *
 * - The admissionregistration.k8s.io/v1 resources (`admissionRegistrationKinds`/`Resources`: Validating
 *   and MutatingWebhookConfiguration; `admissionPolicyKinds`/`Resources`: ValidatingAdmissionPolicy and
 *   its binding) with upstream's defaults, validation and `kubectl get`/`explain` output.
 * - `AdmissionWebhookDispatcher`: upstream's MutatingAdmissionWebhook and ValidatingAdmissionWebhook.
 * - `ValidatingAdmissionPolicies`: upstream's ValidatingAdmissionPolicy plugin (CEL).
 * - `withAdmissionWebhooks`: a ResourceDefinition with both in its strategy (`mutate`, `admit`).
 */
export { admissionRegistrationKinds, admissionRegistrationResources, webhooksOf } from './admission-registration.js';
export type { AdmissionWebhook } from './admission-registration.js';
export { admissionPolicyKinds, admissionPolicyResources } from './admission-policies.js';
export type { BindingSpec, MatchResources, ParamRef, PolicySpec } from './admission-policies.js';
export type { AdmissionAttributes } from './admission-matching.js';
export { AdmissionWebhookDispatcher } from './webhook-dispatcher.js';
export type { AdmissionWebhookSources } from './webhook-dispatcher.js';
export { ValidatingAdmissionPolicies } from './policy-admission.js';
export type { AdmissionPolicySources } from './policy-admission.js';
export { withAdmissionWebhooks } from './webhook-admission.js';
export { webhookMetrics } from './webhook-metrics.js';
export type { WebhookCall, WebhookCallObserver } from './webhook-metrics.js';
export {
  InformedObjects,
  servedNamespaces,
  servedPolicies,
  servedWebhookConfigurations,
  storedPolicies,
  storedWebhookConfigurations,
} from './object-sets.js';
export type { ObjectSet } from './object-sets.js';
