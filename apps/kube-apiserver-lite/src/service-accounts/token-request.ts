import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError, type FieldError, type KubeObject } from '@kapi/apimachinery';
import { requestContext, writeJson, writeStatus, type Filter } from '@kapi/filters';
import { decodeObjectBody, mediaType, readBody, warningHeader, type ProtobufBodyDecoder } from '@kapi/server';
import { issueServiceAccountToken, type BoundObject, type ObjectGetter, type ServiceAccountTokenSettings } from './service-account-token.js';

/** Options of {@link withTokenRequest}. */
export interface TokenRequestOptions extends ServiceAccountTokenSettings {
  getObject: ObjectGetter;
  /** `--service-account-max-token-expiration` in seconds; 0: no cap. */
  maxExpirationSeconds: number;
  /** Decoder of protobuf bodies (kubectl sends TokenRequest as protobuf). */
  protobuf?: ProtobufBodyDecoder;
}

const tokenRequestKind = { group: 'authentication.k8s.io', kind: 'TokenRequest' };
/** Upstream's MinTokenAgeSec and the 2^32 s cap of ValidateTokenRequest. */
const minExpirationSeconds = 10 * 60;
const maxExpirationSeconds = 2 ** 32;
/** The default of `spec.expirationSeconds` (SetDefaults_TokenRequestSpec). */
const defaultExpirationSeconds = 60 * 60;

interface TokenRequestSpec {
  audiences?: string[] | null;
  expirationSeconds?: number | string | null;
  boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string } | null;
}

/**
 * Serves `POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token` (authentication.k8s.io/v1 TokenRequest,
 * verb create on `serviceaccounts/token`) as upstream's TokenREST: a signed service account token. Sits after
 * authorization, so RBAC has already allowed `create` on the subresource.
 */
export function withTokenRequest(options: TokenRequestOptions): Filter {
  return (next) => (request, response) => {
    const info = requestContext(request).requestInfo;
    if (!info?.isResourceRequest || info.apiPrefix !== 'api' || info.apiVersion !== 'v1' || info.resource !== 'serviceaccounts' || info.subresource !== 'token' || !info.name || !info.namespace) {
      return next(request, response);
    }
    return serveTokenRequest(request, response, options, info.namespace, info.name).catch((error: unknown) => {
      writeStatus(response, error);
    });
  };
}

async function serveTokenRequest(request: IncomingMessage, response: ServerResponse, options: TokenRequestOptions, namespace: string, name: string): Promise<void> {
  if (request.method !== 'POST') throw StatusError.methodNotAllowed(request.method ?? 'GET', { group: '', resource: 'serviceaccounts/token' });
  const body = decodeObjectBody(mediaType(request), await readBody(request), options.protobuf);
  const object = (typeof body === 'object' && body !== null ? body : {}) as Partial<KubeObject>;
  if ((object.kind !== undefined && object.kind !== 'TokenRequest') || (object.apiVersion !== undefined && object.apiVersion !== 'authentication.k8s.io/v1')) {
    throw StatusError.badRequest(`the API version in the data (${String(object.apiVersion ?? '')}) does not match the expected API version (authentication.k8s.io/v1)`);
  }
  const metadata = object.metadata ?? {};
  if (metadata.name && metadata.name !== name) {
    throw StatusError.invalid(tokenRequestKind, name, [{ field: 'metadata.name', type: 'FieldValueInvalid', value: metadata.name, detail: 'must match the service account name if specified' }]);
  }
  if (metadata.namespace && metadata.namespace !== namespace) {
    throw StatusError.invalid(tokenRequestKind, name, [{ field: 'metadata.namespace', type: 'FieldValueInvalid', value: metadata.namespace, detail: 'must match the service account namespace if specified' }]);
  }
  const typeError = specTypeError(object.spec);
  if (typeError) throw StatusError.badRequest(`TokenRequest in version "v1" cannot be handled as a TokenRequest: ${typeError}`);
  const spec = (object.spec ?? {}) as TokenRequestSpec;
  const serviceAccount = await options.getObject('serviceaccounts', namespace, name);
  if (!serviceAccount) throw StatusError.notFound({ group: '', resource: 'serviceaccounts' }, name);

  const audiences = spec.audiences?.length ? spec.audiences : [...options.apiAudiences];
  let expirationSeconds = spec.expirationSeconds === undefined || spec.expirationSeconds === null ? defaultExpirationSeconds : Number(spec.expirationSeconds);
  const now = (options.now ?? Date.now)();
  const errors: FieldError[] = [];
  if (!Number.isInteger(expirationSeconds) || expirationSeconds < minExpirationSeconds) {
    errors.push({ field: 'spec.expirationSeconds', type: 'FieldValueInvalid', value: expirationSeconds, detail: 'may not specify a duration less than 10 minutes' });
  } else if (expirationSeconds > maxExpirationSeconds) {
    errors.push({ field: 'spec.expirationSeconds', type: 'FieldValueInvalid', value: expirationSeconds, detail: 'may not specify a duration larger than 2^32 seconds' });
  }
  if (errors.length) throw StatusError.invalid(tokenRequestKind, '', errors);

  const bound = spec.boundObjectRef ? await boundObjects(options.getObject, spec.boundObjectRef, namespace, name) : {};
  const headers: Record<string, string> = {};
  if (options.maxExpirationSeconds > 0 && expirationSeconds > options.maxExpirationSeconds) {
    headers.Warning = warningHeader(`requested expiration of ${expirationSeconds} seconds shortened to ${options.maxExpirationSeconds} seconds`);
    expirationSeconds = options.maxExpirationSeconds;
  }
  const issued = issueServiceAccountToken(
    { ...options, now: () => now },
    {
      serviceAccount: { namespace, name, uid: serviceAccount.metadata.uid ?? '' },
      audiences,
      expirationSeconds,
      ...bound,
    },
  );
  const timestamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
  writeJson(
    response,
    201,
    {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name, namespace, creationTimestamp: timestamp(now) },
      spec: { audiences, expirationSeconds, boundObjectRef: spec.boundObjectRef ?? null },
      status: { token: issued.token, expirationTimestamp: timestamp(issued.expiresAt) },
    },
    headers,
  );
}

/** encoding/json's name of a JSON value's type. */
const jsonType = (value: unknown) => (Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value === 'object' ? 'object' : typeof value);

/** Why the spec would not decode into Go's TokenRequestSpec (a value of the wrong JSON type), as upstream's 400. */
function specTypeError(spec: unknown): string | undefined {
  const unmarshal = (value: unknown, field: string, type: string) => `json: cannot unmarshal ${jsonType(value)} into Go struct field ${field} of type ${type}`;
  if (spec === undefined || spec === null) return undefined;
  if (typeof spec !== 'object' || Array.isArray(spec)) return unmarshal(spec, 'TokenRequest.spec', 'v1.TokenRequestSpec');
  const { audiences, expirationSeconds, boundObjectRef } = spec as Record<string, unknown>;
  if (audiences !== undefined && audiences !== null) {
    if (!Array.isArray(audiences)) return unmarshal(audiences, 'TokenRequestSpec.spec.audiences', '[]string');
    const item = audiences.find((audience) => audience !== null && typeof audience !== 'string');
    if (item !== undefined) return unmarshal(item, 'TokenRequestSpec.spec.audiences', 'string');
  }
  // (A protobuf body's int64 arrives as its decimal text.)
  const integral = Number.isInteger(expirationSeconds) || (typeof expirationSeconds === 'string' && /^-?\d+$/.test(expirationSeconds));
  if (expirationSeconds !== undefined && expirationSeconds !== null && !integral)
    return unmarshal(expirationSeconds, 'TokenRequestSpec.spec.expirationSeconds', 'int64');
  if (boundObjectRef === undefined || boundObjectRef === null) return undefined;
  if (typeof boundObjectRef !== 'object' || Array.isArray(boundObjectRef)) return unmarshal(boundObjectRef, 'TokenRequestSpec.spec.boundObjectRef', 'v1.BoundObjectReference');
  for (const [key, value] of Object.entries(boundObjectRef))
    if (['kind', 'apiVersion', 'name', 'uid'].includes(key) && value !== null && typeof value !== 'string')
      return unmarshal(value, `BoundObjectReference.spec.boundObjectRef.${key}`, key === 'uid' ? 'types.UID' : 'string');
  return undefined;
}

/** Checks `spec.boundObjectRef` as upstream: Pod (running as this service account), Secret or Node; uid must match. */
async function boundObjects(
  getObject: ObjectGetter,
  ref: NonNullable<TokenRequestSpec['boundObjectRef']>,
  namespace: string,
  serviceAccountName: string,
): Promise<{ pod?: BoundObject; secret?: BoundObject; node?: BoundObject }> {
  const apiVersion = ref.apiVersion ?? '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
  const kind = ref.kind ?? '';
  const name = ref.name ?? '';
  const resource = group === '' ? ({ Pod: 'pods', Secret: 'secrets', Node: 'nodes' } as const)[kind] : undefined;
  if (!resource) throw StatusError.badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
  const object = await getObject(resource, resource === 'nodes' ? '' : namespace, name);
  if (!object) throw StatusError.notFound({ group: '', resource }, name);
  const uid = object.metadata.uid ?? '';
  const bound: { pod?: BoundObject; secret?: BoundObject; node?: BoundObject } = {};
  if (resource === 'pods') {
    const podSpec = (object.spec ?? {}) as { serviceAccountName?: string; nodeName?: string };
    if (podSpec.serviceAccountName !== serviceAccountName) {
      throw StatusError.badRequest(`cannot bind token for serviceaccount "${serviceAccountName}" to pod running with different serviceaccount name.`);
    }
    bound.pod = { name, uid };
    if (podSpec.nodeName) {
      const node = await getObject('nodes', '', podSpec.nodeName);
      bound.node = { name: podSpec.nodeName, ...(node?.metadata.uid ? { uid: node.metadata.uid } : {}) };
    }
  } else if (resource === 'secrets') bound.secret = { name, uid };
  else bound.node = { name, uid };
  if (ref.uid && ref.uid !== uid) {
    throw StatusError.conflict(
      { group, resource: kind },
      name,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return bound;
}
