export type { Handler, Filter, RequestInfo, UserInfo, RequestContext, RequestTarget } from './handler.js';
export {
  buildHandlerChain,
  requestContext,
  requestTarget,
  releaseRequestTarget,
  requestWarnings,
  splitRequestTarget,
  abortRequest,
  writeJson,
  writeStatus,
} from './handler.js';

export type { CompletionStep, Outcome } from './completion.js';
export { afterHandling } from './completion.js';

export type { PanicRecoveryOptions } from './with-panic-recovery.js';
export { withPanicRecovery } from './with-panic-recovery.js';

export type { RequestInfoOptions } from './with-request-info.js';
export { withRequestInfo } from './with-request-info.js';
export { parseRequestInfo, isLongRunningRequest, pathSegments } from './request-info.js';

export type { MaxInFlightOptions, MaxInFlightFilter, InFlightCounts } from './with-max-in-flight.js';
export { withMaxInFlight, tooManyRequestsMessage } from './with-max-in-flight.js';

export type {
  AuditLevel,
  AuditStage,
  AuditGroupResources,
  AuditPolicyRule,
  AuditPolicy,
  AuditRequestPolicy,
} from './audit-policy.js';
export { parseAuditPolicy, evaluateAuditPolicy } from './audit-policy.js';
export type { AuditEvent, AuditUser, AuditObjectReference, AuditSink } from './audit-event.js';
export type { AuditOptions } from './with-audit.js';
export { withAudit } from './with-audit.js';
export { withFailedAuthenticationAudit } from './with-failed-authentication-audit.js';

export type { ServerErrorLogOptions } from './with-server-error-log.js';
export { withServerErrorLog } from './with-server-error-log.js';

export type { RequestBodyOptions } from './with-request-body.js';
export { withRequestBody } from './with-request-body.js';
export { closeConnectionAfter } from './connection-close.js';

export type { RequestTimeoutOptions } from './with-request-timeout.js';
export { withRequestTimeout, requestTimeoutMessage } from './with-request-timeout.js';
export { parseGoDuration } from './go-duration.js';

export type { CorsOptions } from './with-cors.js';
export { withCors } from './with-cors.js';

export type { Authenticator, AuthenticationOptions } from './with-authentication.js';
export {
  withAuthentication,
  bearerToken,
  allAuthenticatedGroup,
  allUnauthenticatedGroup,
  anonymousUser,
  systemPrivilegedGroup,
} from './with-authentication.js';
export type { TokenFileSource } from './token-file-authenticator.js';
export { tokenFileAuthenticator, parseTokenFile } from './token-file-authenticator.js';
export { clientCertAuthenticator } from './client-cert-authenticator.js';
export { loopbackAuthenticator, generateLoopbackToken, loopbackUserName } from './loopback-authenticator.js';

export type {
  Authorizer,
  AuthorizationAttributes,
  AuthorizationDecision,
  SubjectAccessReviewStatus,
} from './authorizer.js';
export {
  attributesFromRequest,
  alwaysAllowAuthorizer,
  alwaysDenyAuthorizer,
  privilegedGroupsAuthorizer,
  unionAuthorizer,
  authorizeAttributes,
  forbiddenMessage,
  forbiddenError,
} from './authorizer.js';
export type { AuthorizationMode, AuthorizationModesOptions } from './authorizer-for-modes.js';
export { authorizerForModes } from './authorizer-for-modes.js';
export type { AuthorizationOptions } from './with-authorization.js';
export { withAuthorization } from './with-authorization.js';
export type { ImpersonationOptions } from './with-impersonation.js';
export { withImpersonation } from './with-impersonation.js';

export type {
  PolicyRule,
  Subject,
  RoleRef,
  Role,
  ClusterRole,
  RoleBinding,
  ClusterRoleBinding,
  RBACRuleSource,
  MaybePromise,
} from './rbac-types.js';
export {
  breakdownRule,
  compactRuleString,
  escalationMessage,
  fullAuthorityRules,
  uncoveredRules,
} from './rbac-escalation.js';
export type { RBACAuthorizerOptions } from './rbac-authorizer.js';
export {
  RBACAuthorizer,
  ruleAllows,
  resourceMatches,
  subjectMatchesUser,
  serviceAccountUserName,
} from './rbac-authorizer.js';
