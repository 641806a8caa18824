import {
  loopbackAuthenticator,
  withAuthentication,
  withAudit,
  withAuthorization,
  withCors,
  withFailedAuthenticationAudit,
  withImpersonation,
  withMaxInFlight,
  withPanicRecovery,
  withRequestBody,
  withRequestInfo,
  withRequestTimeout,
  withServerErrorLog,
  type Filter,
} from '@kapi/filters';
import type { CompletedOptions } from './generic-apiserver-config.js';

/**
 * The handler chain a completed config asks for, outermost first (after the server's own request
 * tracking): the 5xx log, panic recovery, request info, timeout, CORS (or `baseFilters` instead of those),
 * authentication (the loopback token first; its 401s audited as upstream), audit, impersonation, the body read, max-in-flight (after authentication, as
 * upstream, so `system:masters` is exempt), authorization, then `innermostFilters`. Impersonation and authorization are both built from the one
 * `authorizer`.
 */
export function configuredFilters(options: CompletedOptions): Filter[] {
  const base = options.baseFilters ?? [
    withPanicRecovery(),
    withRequestInfo(),
    withRequestTimeout({ timeoutMs: options.requestTimeoutMs }),
    withCors({ allowedOrigins: options.corsAllowedOrigins.map((origin) => new RegExp(origin)) }),
  ];
  const authenticators = options.authenticators
    ? [loopbackAuthenticator(options.loopbackToken), ...options.authenticators]
    : undefined;
  const authentication = authenticators
    ? withAuthentication({
        authenticators,
        ...(options.anonymous ? { anonymous: true } : {}),
        ...(options.audit ? { failed: withFailedAuthenticationAudit(options.audit) } : {}),
      })
    : undefined;
  const authorizer = options.authorizer;
  return [
    withServerErrorLog(options.errorLog ? { write: options.errorLog } : {}),
    ...base,
    ...(authentication ? [authentication] : []),
    ...(options.audit ? [withAudit(options.audit)] : []),
    ...(authorizer ? [withImpersonation({ authorizer })] : []),
    // The body is read before a max-in-flight seat is taken: a slow client holds no seat.
    withRequestBody({ timeoutMs: options.requestTimeoutMs }),
    withMaxInFlight({
      maxRequestsInFlight: options.maxRequestsInFlight,
      maxMutatingRequestsInFlight: options.maxMutatingRequestsInFlight,
    }),
    ...(authorizer ? [withAuthorization({ authorizer })] : []),
    ...(options.innermostFilters ?? []),
  ];
}
