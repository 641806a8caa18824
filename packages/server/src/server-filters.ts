import {
  loopbackAuthenticator,
  withAuthentication,
  withAuthorization,
  withCors,
  withImpersonation,
  withMaxInFlight,
  withPanicRecovery,
  withRequestInfo,
  withRequestTimeout,
  type Filter,
} from '@kapi/filters';
import type { CompletedOptions } from './generic-apiserver-config.js';

/**
 * The handler chain a completed config asks for, outermost first (after the server's own request
 * tracking): panic recovery, request info, max-in-flight, timeout, CORS (or `baseFilters` instead of
 * those), authentication (the loopback token first), impersonation, authorization, then
 * `innermostFilters`. Impersonation and authorization are both built from the one `authorizer`.
 */
export function configuredFilters(options: CompletedOptions): Filter[] {
  const base = options.baseFilters ?? [
    withPanicRecovery(),
    withRequestInfo(),
    withMaxInFlight({
      maxRequestsInFlight: options.maxRequestsInFlight,
      maxMutatingRequestsInFlight: options.maxMutatingRequestsInFlight,
    }),
    withRequestTimeout({ timeoutMs: options.requestTimeoutMs }),
    withCors({ allowedOrigins: options.corsAllowedOrigins.map((origin) => new RegExp(origin)) }),
  ];
  const authenticators = options.authenticators
    ? [loopbackAuthenticator(options.loopbackToken), ...options.authenticators]
    : undefined;
  const authentication = authenticators
    ? withAuthentication({ authenticators, ...(options.anonymous ? { anonymous: true } : {}) })
    : undefined;
  const authorizer = options.authorizer;
  return [
    ...base,
    ...(authentication ? [authentication] : []),
    ...(authorizer ? [withImpersonation({ authorizer }), withAuthorization({ authorizer })] : []),
    ...(options.innermostFilters ?? []),
  ];
}
