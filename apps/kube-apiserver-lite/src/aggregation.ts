import { readFileSync } from 'node:fs';
import {
  AggregationLayer,
  ensureFrontProxyCertificates,
  publishExtensionAPIServerAuthentication,
} from '@kapi/aggregator';
import type { RestClient } from '@kapi/client';
import type { GenericAPIServer } from '@kapi/server';
import type { ServerOptions } from './options.js';

/** Upstream's names of the hooks that publish the authentication ConfigMap and start the availability controller. */
export const AUTHENTICATION_TRUST_HOOK = 'start-cluster-authentication-info-controller';
export const AVAILABILITY_HOOK = 'apiservice-status-remote-available-controller';

/** The aggregation layer of the server and what it publishes for aggregated servers. */
export interface Aggregation {
  layer: AggregationLayer;
  /** PEM of the CA aggregated servers must trust for the proxy's client certificate. */
  requestHeaderCA: string;
}

/**
 * The proxy side of the aggregator: the proxy client certificate from `--proxy-client-cert-file` /
 * `--proxy-client-key-file` (with `--requestheader-client-ca-file`), or else a front-proxy CA and a
 * `front-proxy-client` certificate generated in the data dir.
 */
export function createAggregation(options: ServerOptions): Aggregation {
  const files = options.proxyClientCertFile && options.proxyClientKeyFile && options.requestheaderClientCAFile;
  const generated = files ? undefined : ensureFrontProxyCertificates(options.dataDir);
  const proxyClientCertificate = generated
    ? generated.client
    : {
        certificatePem: readFileSync(options.proxyClientCertFile ?? '', 'utf8'),
        privateKeyPem: readFileSync(options.proxyClientKeyFile ?? '', 'utf8'),
      };
  const layer = new AggregationLayer({
    proxyClientCertificate,
    availabilityIntervalMs: options.apiServiceAvailabilityIntervalMs,
  });
  return { layer, requestHeaderCA: generated?.ca.certificatePem ?? readFileSync(options.requestheaderClientCAFile ?? '', 'utf8') };
}

/**
 * Merges the backends' discovery into the server's and, once the server listens, publishes
 * `kube-system/extension-apiserver-authentication` (and its reader Role) and starts the aggregator's
 * caches and availability controller.
 */
export function startAggregation(
  aggregation: Aggregation,
  context: { server: GenericAPIServer; rest: () => RestClient; clientCA: string; allowedNames: string[]; controllers: Array<() => Promise<void> | void> },
): void {
  context.server.addAggregatedDiscoverySource(aggregation.layer.discovery);
  context.server.addPostStartHook(AUTHENTICATION_TRUST_HOOK, ({ signal }) =>
    publishExtensionAPIServerAuthentication(
      context.rest(),
      { clientCA: context.clientCA, requestHeaderCA: aggregation.requestHeaderCA, allowedNames: context.allowedNames },
      signal,
    ),
  );
  context.server.addPostStartHook(AVAILABILITY_HOOK, async () => {
    context.controllers.push(() => aggregation.layer.stop());
    await aggregation.layer.start(context.rest());
  });
}
