import { createAPIExtensionsServer, type APIExtensionsServerOptions } from '@kapi/apiextensions';
import type { GenericAPIServer } from '@kapi/server';

/**
 * The apiextensions server kube-apiserver-lite delegates to (kube-apiserver -> apiextensions -> 404, as
 * upstream's chain): CRDs and their custom resources on the same port, storage, scheme and health as
 * the built-ins. Filters (authentication, authorization...) run once, in the outer server.
 */
export function apiExtensionsDelegate(options: APIExtensionsServerOptions): GenericAPIServer {
  return createAPIExtensionsServer(options).server;
}
