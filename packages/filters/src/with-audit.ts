import type { ServerResponse } from 'node:http';
import type { Status } from '@kapi/apimachinery';
import { requestContext, type Filter, type UserInfo } from './handler.js';
import type { AuthorizationDecision } from './authorizer.js';
import { evaluateAuditPolicy, type AuditPolicy, type AuditStage } from './audit-policy.js';
import { auditIDOf, auditUser, microTime, requestMetadata, type AuditEvent, type AuditSink } from './audit-event.js';

/** Options of {@link withAudit}. */
export interface AuditOptions {
  policy: AuditPolicy;
  sink: AuditSink;
}

/**
 * Audits requests (k8s.io/apiserver WithAuditInit + WithAudit): every request gets an audit ID (the
 * client's `Audit-ID` header or a new UUID), sent back in the `Audit-ID` response header; the policy's
 * first matching rule picks the level, and events are written at RequestReceived, ResponseStarted
 * (long-running requests only), ResponseComplete and Panic, minus the omitted stages. `Request` adds
 * the request body, `RequestResponse` the response body too; `Metadata` records neither (so no Secret
 * data). Place it after authentication and before impersonation, as upstream: the user who
 * authenticated is `user`, and a user the filters after it put in the context is `impersonatedUser`.
 */
export function withAudit(options: AuditOptions): Filter {
  const { policy, sink } = options;
  return (next) => async (request, response) => {
    const context = requestContext(request, response);
    const auditID = auditIDOf(request);
    response.setHeader('Audit-ID', auditID);
    const info = context.requestInfo;
    if (!info) return next(request, response);
    const user = context.user;
    const { level, omitStages } = evaluateAuditPolicy(policy, info, user);
    if (level === 'None') return next(request, response);

    const omitted = new Set<AuditStage>(omitStages);
    const { requestURI, verb, ...origin } = requestMetadata(request, info);
    const event = (stage: AuditStage): AuditEvent => {
      const effective: UserInfo | undefined = context.user;
      return {
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level,
        auditID,
        stage,
        requestURI,
        verb,
        user: auditUser(user),
        ...(effective && effective !== user ? { impersonatedUser: auditUser(effective) } : {}),
        ...origin,
        requestReceivedTimestamp: microTime(context.receivedAt),
        stageTimestamp: microTime(Date.now()),
      };
    };
    const emit = (stage: AuditStage, complete: (event: AuditEvent) => void = () => undefined): void => {
      if (omitted.has(stage)) return;
      const record = event(stage);
      complete(record);
      const annotations = { ...authorizationAnnotations(context.authorization), ...context.auditAnnotations };
      if (Object.keys(annotations).length) record.annotations = annotations;
      sink.write(record);
    };

    emit('RequestReceived');
    if (context.longRunning) {
      onHeaders(response, () =>
        emit('ResponseStarted', (record) => (record.responseStatus = { metadata: {}, code: response.statusCode })),
      );
    }
    const captured = level === 'RequestResponse' && !context.longRunning ? captureBody(response) : undefined;
    try {
      await next(request, response);
    } catch (error) {
      emit('Panic', (record) => {
        record.responseStatus = {
          metadata: {},
          status: 'Failure',
          message: `APIServer panic'd: ${error instanceof Error ? error.message : String(error)}`,
          code: 500,
        };
      });
      throw error;
    }
    emit('ResponseComplete', (record) => {
      record.responseStatus = responseStatus(context.responseStatus, response.statusCode);
      if (level !== 'Metadata' && context.body) {
        const requestObject = parseJson(context.body);
        if (requestObject !== undefined) record.requestObject = requestObject;
      }
      if (captured) {
        const responseObject = parseJson(Buffer.concat(captured));
        if (responseObject !== undefined) record.responseObject = responseObject;
      }
    });
  };
}

/** The event's `responseStatus`: the code, and the written Status's fields when it is the answer. */
function responseStatus(status: Status | undefined, code: number): NonNullable<AuditEvent['responseStatus']> {
  if (!status || status.code !== code) return { metadata: {}, code };
  const { status: outcome, message, reason, details } = status;
  return {
    metadata: {},
    ...(outcome ? { status: outcome } : {}),
    ...(message ? { message } : {}),
    ...(reason ? { reason } : {}),
    ...(details ? { details } : {}),
    code,
  };
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Calls `listener` once, when the response's headers go out (explicitly or with the first write). */
function onHeaders(response: ServerResponse, listener: () => void): void {
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
  let called = false;
  (response as { writeHead: (...args: unknown[]) => ServerResponse }).writeHead = (...args: unknown[]) => {
    const result = writeHead(...args);
    if (!called) {
      called = true;
      listener();
    }
    return result;
  };
}

/** Collects what the handler writes to the response body. */
function captureBody(response: ServerResponse): Buffer[] {
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown): void => {
    if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  const write = response.write.bind(response) as (...args: unknown[]) => boolean;
  const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
  (response as { write: (...args: unknown[]) => boolean }).write = (chunk: unknown, ...rest: unknown[]) => {
    keep(chunk);
    return write(chunk, ...rest);
  };
  (response as { end: (...args: unknown[]) => ServerResponse }).end = (chunk?: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== 'function') keep(chunk);
    return end(chunk, ...rest);
  };
  return chunks;
}

/** The annotations upstream's authorization filter adds to the audit event of an authorized request. */
function authorizationAnnotations(authorization: AuthorizationDecision | undefined): Record<string, string> | undefined {
  if (!authorization) return undefined;
  return {
    'authorization.k8s.io/decision': authorization.decision === 'allow' ? 'allow' : 'forbid',
    'authorization.k8s.io/reason': authorization.reason ?? '',
  };
}
