import { randomUUID } from 'node:crypto';
import { StatusError, type KubeObject } from '@kapi/apimachinery';
import type { CustomResourceDefinition } from '../crd/types.js';
import { postJsonSync, type PostResult } from './post-json-sync.js';

/** Converts one object to `apiVersion` (`<group>/<version>`). */
export type Converter = (object: KubeObject, apiVersion: string) => KubeObject;

/** Upstream's conversion webhook timeout. */
const TIMEOUT_SECONDS = 30;
const knownReviewVersions = ['v1', 'v1beta1'];

interface ConversionResponse {
  uid?: string;
  convertedObjects?: KubeObject[];
  result?: { status?: string; message?: string };
}

/** The webhook's URL: `clientConfig.url`, or the service's in-cluster name. */
function webhookURL(crd: CustomResourceDefinition): string {
  const config = crd.spec.conversion?.webhook?.clientConfig ?? {};
  const base = config.url ?? (config.service
    ? `https://${config.service.name}.${config.service.namespace}.svc:${config.service.port ?? 443}${config.service.path ?? ''}`
    : '');
  const url = new URL(base);
  url.searchParams.set('timeout', `${TIMEOUT_SECONDS}s`);
  return url.toString();
}

/** Go's schema.GroupVersionKind String(): `group/version, Kind=Kind`. */
function gvkText(object: KubeObject): string {
  return `${object.apiVersion ?? ''}, Kind=${object.kind ?? ''}`;
}

function responseOf(result: PostResult, url: string, uid: string, reviewVersion: string): ConversionResponse {
  if ('error' in result) throw new Error(`Post "${url}": ${result.error}`);
  if (result.status !== 200) throw new Error(`conversion webhook returned HTTP status ${result.status}`);
  let review: { response?: ConversionResponse };
  try {
    review = JSON.parse(result.body) as { response?: ConversionResponse };
  } catch (error) {
    throw new Error(`failed to unmarshal ConversionReview ${reviewVersion}: ${(error as Error).message}`);
  }
  const response = review.response;
  if (!response) throw new Error(`no response provided`);
  if (response.uid !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`);
  if (response.result?.status !== 'Success') {
    throw new Error(response.result?.message || `response.result.status was '${response.result?.status ?? ''}', not 'Success'`);
  }
  return response;
}

/** Checks a converted object and restores what a webhook may not change (all metadata but labels and annotations). */
function restore(original: KubeObject, converted: KubeObject | undefined, apiVersion: string): KubeObject {
  if (typeof converted !== 'object' || converted === null) throw new Error('invalid converted object: not an object');
  if (converted.apiVersion !== apiVersion) {
    throw new Error(`invalid converted object: expected apiVersion ${JSON.stringify(apiVersion)}, got ${JSON.stringify(converted.apiVersion ?? '')}`);
  }
  if (converted.kind !== original.kind) {
    throw new Error(`invalid converted object: expected kind ${JSON.stringify(original.kind)}, got ${JSON.stringify(converted.kind ?? '')}`);
  }
  const metadata = converted.metadata ?? {};
  for (const field of ['name', 'namespace', 'uid'] as const) {
    if ((metadata[field] ?? '') !== (original.metadata[field] ?? '')) {
      throw new Error(`invalid converted object: must not change metadata.${field}`);
    }
  }
  const { labels, annotations } = metadata;
  const restored = { ...original.metadata };
  delete restored.labels;
  delete restored.annotations;
  return { ...converted, metadata: { ...restored, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) } };
}

/**
 * The CRD's conversion webhook (strategy Webhook): a ConversionReview (`apiextensions.k8s.io/v1`, or the
 * first of `conversionReviewVersions` this server knows) POSTed to `clientConfig.url` (or the service)
 * trusting `caBundle`. Failures are 500s reading `conversion webhook for <gvk> failed: <reason>`.
 */
export function webhookConverter(crd: CustomResourceDefinition): Converter {
  const webhook = crd.spec.conversion?.webhook;
  const reviewVersion = (webhook?.conversionReviewVersions ?? ['v1']).find((v) => knownReviewVersions.includes(v)) ?? 'v1';
  const caBundle = webhook?.clientConfig?.caBundle;
  const ca = caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined;
  const url = webhookURL(crd);
  return (object, apiVersion) => {
    if (object.apiVersion === apiVersion) return object;
    const uid = randomUUID();
    const review = {
      kind: 'ConversionReview',
      apiVersion: `apiextensions.k8s.io/${reviewVersion}`,
      request: { uid, desiredAPIVersion: apiVersion, objects: [object] },
    };
    try {
      const result = postJsonSync(url, JSON.stringify(review), { timeoutMs: TIMEOUT_SECONDS * 1000, ...(ca ? { ca } : {}) });
      const converted = responseOf(result, url, uid, reviewVersion).convertedObjects ?? [];
      if (converted.length !== 1) throw new Error(`returned ${converted.length} objects, expected 1`);
      return restore(object, converted[0], apiVersion);
    } catch (error) {
      throw StatusError.of(500, 'InternalError', `conversion webhook for ${gvkText(object)} failed: ${(error as Error).message}`);
    }
  };
}
