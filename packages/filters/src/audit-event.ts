import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Status } from '@kapi/apimachinery';
import type { AuditLevel, AuditStage } from './audit-policy.js';
import type { RequestInfo, UserInfo } from './handler.js';

/** A user as an audit event records it (authentication.k8s.io/v1 UserInfo; empty when authentication failed). */
export interface AuditUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** The object a request is about (audit.k8s.io/v1 ObjectReference). */
export interface AuditObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  apiGroup?: string;
  apiVersion?: string;
  subresource?: string;
}

/** One audit record (audit.k8s.io/v1 Event), fields in upstream's order. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: AuditLevel;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: AuditObjectReference;
  responseStatus?: Partial<Status> & { metadata: Record<string, never> };
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** Where events go (a log file, stdout, a webhook). Must not throw. */
export interface AuditSink {
  write(event: AuditEvent): void;
}

/** The request's audit ID: the client's `Audit-ID` header, or a new UUID (WithAuditInit). */
export function auditIDOf(request: IncomingMessage): string {
  const header = request.headers['audit-id'];
  return typeof header === 'string' && header ? header : randomUUID();
}

/** What every event of a request records about it: URI, verb, addresses, user agent and object (in upstream's order, around `user`). */
export function requestMetadata(
  request: IncomingMessage,
  info: RequestInfo,
): Pick<AuditEvent, 'requestURI' | 'verb' | 'sourceIPs' | 'userAgent' | 'objectRef'> {
  const userAgent = request.headers['user-agent'];
  const objectRef = objectReference(info);
  return {
    requestURI: request.url ?? '',
    verb: info.verb,
    sourceIPs: sourceIPs(request),
    ...(userAgent ? { userAgent } : {}),
    ...(objectRef ? { objectRef } : {}),
  };
}

/** A Go `metav1.MicroTime` in RFC 3339 with microseconds (`2024-01-02T03:04:05.678000Z`). */
export function microTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** An audit user from an authenticated one (anonymous when there is none). */
export function auditUser(user: UserInfo | undefined): AuditUser {
  if (!user) return { username: 'system:anonymous', groups: ['system:unauthenticated'] };
  return {
    username: user.name,
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups.length ? { groups: [...user.groups] } : {}),
    ...(user.extra && Object.keys(user.extra).length ? { extra: user.extra } : {}),
  };
}

/** The client addresses: `X-Forwarded-For`, then `X-Real-Ip`, then the connection's peer (as upstream). */
export function sourceIPs(request: IncomingMessage): string[] {
  const addresses: string[] = [];
  const forwarded = request.headers['x-forwarded-for'];
  if (typeof forwarded === 'string') addresses.push(...forwarded.split(',').map((part) => part.trim()).filter(Boolean));
  const real = request.headers['x-real-ip'];
  if (typeof real === 'string' && real && !addresses.includes(real)) addresses.push(real);
  const peer = request.socket?.remoteAddress?.replace(/^::ffff:/, '');
  if (peer && !addresses.includes(peer)) addresses.push(peer);
  return addresses;
}

/** The object reference of a resource request (only its non-empty fields); none for other requests. */
export function objectReference(info: RequestInfo): AuditObjectReference | undefined {
  if (!info.isResourceRequest) return undefined;
  const reference: AuditObjectReference = {};
  if (info.resource) reference.resource = info.resource;
  if (info.namespace) reference.namespace = info.namespace;
  if (info.name) reference.name = info.name;
  if (info.apiGroup) reference.apiGroup = info.apiGroup;
  if (info.apiVersion) reference.apiVersion = info.apiVersion;
  if (info.subresource) reference.subresource = info.subresource;
  return reference;
}
