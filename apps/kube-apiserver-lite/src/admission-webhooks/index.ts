import type { ServiceResolver } from '@kapi/apiextensions';
import type { Registry } from 'prom-client';
import type { ResourceDefinition } from '@kapi/server';
import { namespaceLifecycleAdmission, type NamespaceLookup } from '../namespace-lifecycle.js';
import type { WatchedStorage } from '../watched-objects.js';
import { withAdmissionWebhooks } from './webhook-admission.js';
import { ValidatingAdmissionPolicies } from './policy-admission.js';
import { AdmissionWebhookDispatcher } from './webhook-dispatcher.js';
import { webhookMetrics } from './webhook-metrics.js';

export { AdmissionWebhookDispatcher } from './webhook-dispatcher.js';

/** The admission of kube-apiserver-lite's resources (built-in and custom). */
export interface Admission {
  /** `definition` with namespace lifecycle (namespaced resources) and admission webhooks in its strategy. */
  admitted(definition: ResourceDefinition): ResourceDefinition;
  webhooks: AdmissionWebhookDispatcher;
  policies: ValidatingAdmissionPolicies;
  /** Starts the watches of webhook configurations and policies. */
  start(): Promise<void>;
  stop(): void;
}

/**
 * Admission as upstream's default plugins that apply here: NamespaceLifecycle, then
 * MutatingAdmissionWebhook (before validation), ValidatingAdmissionPolicy and ValidatingAdmissionWebhook
 * (after it). `storages`
 * gives the installed storage of a resource (`<group>/<resource>`); `lookup` the namespaces.
 */
export function createAdmission(options: {
  storage: (groupResource: string) => WatchedStorage | undefined;
  lookup: () => NamespaceLookup;
  resolveService: ServiceResolver;
  /** Where the webhook metrics go. */
  metrics?: Registry;
}): Admission {
  const required = (resource: string) => {
    const storage = options.storage(`admissionregistration.k8s.io/${resource}`);
    if (!storage) throw new Error(`${resource} are not installed`);
    return storage;
  };
  const webhooks = new AdmissionWebhookDispatcher({
    storages: () => ({ validating: required('validatingwebhookconfigurations'), mutating: required('mutatingwebhookconfigurations') }),
    resolveService: options.resolveService,
    namespaceLabels: async (namespace) => (await options.lookup().get(namespace))?.metadata.labels ?? {},
    ...(options.metrics ? { observe: webhookMetrics(options.metrics) } : {}),
  });
  const policies = new ValidatingAdmissionPolicies({
    storages: () => ({ policies: required('validatingadmissionpolicies'), bindings: required('validatingadmissionpolicybindings') }),
    namespace: (name) => options.lookup().get(name),
  });
  return {
    webhooks,
    policies,
    start: () => Promise.all([webhooks.start(), policies.start()]).then(() => undefined),
    stop() {
      webhooks.stop();
      policies.stop();
    },
    admitted(definition) {
      const admit = definition.namespaced ? namespaceLifecycleAdmission(definition, options.lookup()) : definition.strategy?.admit;
      const withNamespaces = admit ? { ...definition, strategy: { ...definition.strategy, admit } } : definition;
      return withAdmissionWebhooks(withNamespaces, webhooks, policies);
    },
  };
}
