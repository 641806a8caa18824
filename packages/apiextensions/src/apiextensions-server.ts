import type { Scheme } from '@kapi/apimachinery';
import type { RestClient } from '@kapi/client';
import { GenericAPIServerConfig, type GenericAPIServer, type GenericAPIServerOptions } from '@kapi/server';
import { CustomResourceDefinitionController } from './crd/crd-controller.js';
import { customResourceDefinitionKind, customResourceDefinitionResource } from './crd/resource.js';
import { CustomResourceHandler, type CustomResourceHooks } from './customresource/custom-resource-handler.js';
import { CustomResourceScheme } from './customresource/custom-resource-scheme.js';
import type { ServiceResolver } from './conversion/webhook-client.js';

/** Options of {@link createAPIExtensionsServer}. */
export interface APIExtensionsServerOptions extends Omit<GenericAPIServerOptions, 'scheme'> {
  /**
   * The scheme CRD and CR kinds are registered in. Share the outer server's scheme when composing, so
   * its OpenAPI documents describe the custom resources too.
   */
  scheme: Scheme;
  /** A client of the (outermost) serving server as system:apiserver, for the CRD controllers. */
  loopback: () => RestClient;
  /** Hooks of the embedding server around custom resources being served and removed. */
  hooks?: CustomResourceHooks;
  /** Resolves conversion webhooks' `clientConfig.service` (without it, only `clientConfig.url` is reachable). */
  resolveService?: ServiceResolver;
}

/** A built apiextensions server. */
export interface APIExtensionsServer {
  server: GenericAPIServer;
  handler: CustomResourceHandler;
}

/** The post-start hook that starts the CRD controllers. */
export const CRD_CONTROLLERS_HOOK = 'start-apiextensions-controllers';

/**
 * Builds the apiextensions-apiserver: serves `customresourcedefinitions` and, once a CRD is
 * Established, its custom resources; anything else goes to `delegate` (404 without one).
 */
export function createAPIExtensionsServer(options: APIExtensionsServerOptions, delegate?: GenericAPIServer): APIExtensionsServer {
  const { loopback, hooks, resolveService, ...rest } = options;
  if (!options.scheme.recognizes(customResourceDefinitionKind)) options.scheme.addKind(customResourceDefinitionKind);
  const scheme = new CustomResourceScheme(options.scheme);
  const server = new GenericAPIServerConfig({ ...rest, scheme }).complete().new(delegate);
  server.installResource(customResourceDefinitionResource);
  const handler = new CustomResourceHandler(server, scheme, hooks, resolveService);
  server.addPostStartHook(CRD_CONTROLLERS_HOOK, async ({ signal }) => {
    const controller = new CustomResourceDefinitionController(loopback(), handler);
    signal.addEventListener('abort', () => controller.stop(), { once: true });
    await controller.start();
    await hooks?.onSynced?.();
  });
  return { server, handler };
}
