import {
  loopbackAuthenticator,
  withAuthentication,
  withAuthorization,
  withCors,
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
 * those), authentication (the loopback token first), authorization, then `innermostFilters`.
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
  const authentication =
    options.authentication ??
    (authenticators
      ? withAuthentication({ authenticators, ...(options.anonymous ? { anonymous: true } : {}) })
      : undefined);
  const authorization =
    options.authorization ??
    (options.authorizer ? withAuthorization({ authorizer: options.authorizer }) : undefined);
  return [
    ...base,
    ...(authentication ? [authentication] : []),
    ...(authorization ? [authorization] : []),
    ...(options.innermostFilters ?? []),
  ];
}
