import { StatusError, labelSelectorFromObject, parseGroupVersion, type KubeObject } from '@kapi/apimachinery';
import type { ServiceResolver } from '@kapi/apiextensions';
import { ResourceClient, type RestClient } from '@kapi/client';
import type { Registry } from 'prom-client';
import type { ResourceDefinition } from '@kapi/server';
import { namespaceLifecycleAdmission, type NamespaceLookup } from './namespace-lifecycle.js';
import type { WatchedStorage } from '@kapi/storage';
import {
  AdmissionWebhookDispatcher,
  ValidatingAdmissionPolicies,
  storedPolicies,
  storedWebhookConfigurations,
  webhookMetrics,
  withAdmissionWebhooks,
  type ParamRef,
} from '@kapi/admission';

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
  /** The loopback client (policies' parameters are read through it). */
  rest: () => RestClient;
  /** Where the webhook metrics go. */
  metrics?: Registry;
}): Admission {
  const required = (resource: string) => {
    const storage = options.storage(`admissionregistration.k8s.io/${resource}`);
    if (!storage) throw new Error(`${resource} are not installed`);
    return storage;
  };
  const webhooks = new AdmissionWebhookDispatcher({
    configurations: () =>
      storedWebhookConfigurations({ validating: required('validatingwebhookconfigurations'), mutating: required('mutatingwebhookconfigurations') }),
    resolveService: options.resolveService,
    namespaceLabels: async (namespace) => (await options.lookup().get(namespace))?.metadata.labels ?? {},
    ...(options.metrics ? { observe: webhookMetrics(options.metrics) } : {}),
  });
  // The kinds served (built-in and custom), for the parameters of policies.
  const served = new Map<string, ResourceDefinition>();
  const policies = new ValidatingAdmissionPolicies({
    objects: () => storedPolicies({ policies: required('validatingadmissionpolicies'), bindings: required('validatingadmissionpolicybindings') }),
    namespace: (name) => options.lookup().get(name),
    params: (paramKind, namespace, ref) => readParams(served, options.rest(), paramKind, namespace, ref),
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
      served.set(`${definition.group}/${definition.kind}`, definition);
      const admit = definition.namespaced ? namespaceLifecycleAdmission(definition, options.lookup()) : definition.strategy?.admit;
      const withNamespaces = admit ? { ...definition, strategy: { ...definition.strategy, admit } } : definition;
      return withAdmissionWebhooks(withNamespaces, webhooks, policies);
    },
  };
}

/**
 * A policy binding's parameters, read through the loopback client: the object `ref` names, or those its
 * selector picks, of `paramKind` (a kind this server serves), in `namespace` when the kind is namespaced.
 */
async function readParams(
  served: ReadonlyMap<string, ResourceDefinition>,
  rest: RestClient,
  paramKind: { apiVersion?: string; kind?: string },
  namespace: string,
  ref: ParamRef,
): Promise<KubeObject[]> {
  const { group, version } = parseGroupVersion(paramKind.apiVersion ?? '');
  const definition = served.get(`${group}/${paramKind.kind ?? ''}`);
  if (!definition) throw new Error(`failed to find resource referenced by paramKind: '${paramKind.apiVersion ?? ''}, Kind=${paramKind.kind ?? ''}'`);
  if (definition.namespaced && !namespace)
    throw new Error('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  const client = new ResourceClient(rest, { group, version, resource: definition.resource, namespaced: definition.namespaced });
  const where = definition.namespaced ? namespace : undefined;
  if (ref.name) {
    try {
      return [await client.get(where, ref.name)];
    } catch (error) {
      if (StatusError.isInstance(error) && error.code === 404) return [];
      throw error;
    }
  }
  const selector = labelSelectorFromObject(ref.selector ?? {}).toString();
  return (await client.list(where, selector ? { labelSelector: selector } : {})).items;
}
