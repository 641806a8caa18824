import {
  AdmissionWebhookDispatcher,
  ValidatingAdmissionPolicies,
  servedNamespaces,
  servedPolicies,
  servedWebhookConfigurations,
  withAdmissionWebhooks,
  type ObjectSet,
} from '@kapi/admission';
import { AggregatorInformers, webhookServiceResolver } from '@kapi/aggregator';
import type { RestClient } from '@kapi/client';
import type { ResourceDefinition } from '@kapi/server';

/** The main server's admission, applied to this server's resources. */
export interface WardleAdmission {
  /** `definition` with the webhooks and policies in its strategy. */
  admitted(definition: ResourceDefinition): ResourceDefinition;
  stop(): void;
}

/**
 * The admission webhooks and ValidatingAdmissionPolicies configured on the main server, applied to the
 * wardle resources, as sample-apiserver gets them from the generic apiserver's admission plugins: the
 * configurations, policies, bindings and namespaces are read from the main server by informers (its
 * `wardle:aggregated-apiserver` ClusterRole lets this server list and watch them). Resolves once they
 * have listed. A webhook's `service` is resolved as the aggregator resolves APIServices: through the
 * main server's Services and EndpointSlices.
 */
export async function startWardleAdmission(main: RestClient): Promise<WardleAdmission> {
  let namespaces: ObjectSet | undefined;
  const services = new AggregatorInformers(main);
  services.start();
  const webhooks = new AdmissionWebhookDispatcher({
    configurations: () => servedWebhookConfigurations(main),
    resolveService: webhookServiceResolver(services),
    namespaceLabels: async (name) => namespaces?.objects.get(`/${name}`)?.metadata.labels ?? {},
  });
  const policies = new ValidatingAdmissionPolicies({
    objects: () => servedPolicies(main),
    namespace: async (name) => namespaces?.objects.get(`/${name}`),
  });
  await Promise.all([webhooks.start(), policies.start(), servedNamespaces(main).then((set) => (namespaces = set)), services.waitForSync()]);
  return {
    admitted: (definition) => withAdmissionWebhooks(definition, webhooks, policies),
    stop() {
      webhooks.stop();
      policies.stop();
      namespaces?.stop();
      void services.stop();
    },
  };
}
