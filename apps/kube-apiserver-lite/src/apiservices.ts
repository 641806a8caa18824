import { apiServiceKind, apiServiceResource, customResourcePriority, localAPIServices, registerAPIServices } from '@kapi/aggregator';
import type { Scheme } from '@kapi/apimachinery';
import type { RestClient } from '@kapi/client';
import type { GenericAPIServer, ResourceDefinition } from '@kapi/server';

/** Upstream's name of the hook that registers the server's own group/versions as local APIServices. */
export const AUTOREGISTRATION_HOOK = 'kube-apiserver-autoregistration';

/**
 * Serves `apiregistration.k8s.io/v1` APIServices and, once the server runs, creates a local APIService
 * for every group/version it serves. Returns the installed definition.
 */
export function installAPIServices(
  scheme: Scheme,
  server: GenericAPIServer,
  rest: () => RestClient,
): ResourceDefinition {
  scheme.addKind(apiServiceKind);
  const definition = apiServiceResource();
  server.installResource(definition);
  server.addPostStartHook(AUTOREGISTRATION_HOOK, ({ signal }) => {
    const groupVersions = server
      .installedResources()
      .flatMap(({ definition: served }) =>
        served.versions.map((version) => ({ group: served.group, version })),
      );
    // The storage version migrator's group is a custom resource group upstream: its APIService gets theirs.
    return registerAPIServices(rest(), localAPIServices(groupVersions, { 'migration.k8s.io/v1alpha1': customResourcePriority }), signal);
  });
  return definition;
}
