import type { IncomingMessage } from 'node:http';
import { requestContext, type Handler } from './handler.js';
import { evaluateAuditPolicy } from './audit-policy.js';
import { auditIDOf, microTime, requestMetadata } from './audit-event.js';
import type { AuditOptions } from './with-audit.js';
import { unauthorized } from './with-authentication.js';

/**
 * Audits requests that failed authentication (upstream's WithFailedAuthenticationAudit), wrapping the
 * handler that answers them (`failed`, 401 by default): when the policy, evaluated without a user,
 * records the request, one event is written at stage ResponseStarted (unless the policy omits it) with
 * an empty `user` and `responseStatus` `{message: "Authentication failed, ...", code: 401}` naming the
 * credentials that were tried. The response carries the `Audit-ID` header.
 */
export function withFailedAuthenticationAudit(options: AuditOptions, failed: Handler = unauthorized): Handler {
  const { policy, sink } = options;
  return async (request, response) => {
    const context = requestContext(request, response);
    const auditID = auditIDOf(request);
    response.setHeader('Audit-ID', auditID);
    const info = context.requestInfo;
    if (!info) return failed(request, response);
    const { level, omitStages } = evaluateAuditPolicy(policy, info, undefined);
    if (level === 'None' || omitStages.includes('ResponseStarted')) return failed(request, response);
    await failed(request, response);
    const { requestURI, verb, ...origin } = requestMetadata(request, info);
    sink.write({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level,
      auditID,
      stage: 'ResponseStarted',
      requestURI,
      verb,
      user: {},
      ...origin,
      responseStatus: { metadata: {}, message: attemptedAuthentication(request), code: response.statusCode },
      requestReceivedTimestamp: microTime(context.receivedAt),
      stageTimestamp: microTime(Date.now()),
    });
  };
}

/** `Authentication failed, attempted: <methods>` or `..., no credentials provided` (upstream's getAuthMethods). */
function attemptedAuthentication(request: IncomingMessage): string {
  const methods: string[] = [];
  const authorization = (request.headers.authorization ?? '').trim();
  const [scheme = '', ...rest] = authorization.split(' ');
  if (scheme.toLowerCase() === 'basic' && rest.length > 0) methods.push('basic');
  if (rest.length > 0 && scheme.toLowerCase() === 'bearer') methods.push('bearer');
  const query = new URLSearchParams((request.url ?? '').split('?')[1] ?? '');
  if ((query.get('access_token') ?? '').trim()) methods.push('access_token');
  const socket = request.socket as { getPeerCertificate?: () => { raw?: Buffer } };
  if (socket.getPeerCertificate?.().raw) methods.push('x509');
  return methods.length > 0
    ? `Authentication failed, attempted: ${methods.join(', ')}`
    : 'Authentication failed, no credentials provided';
}
