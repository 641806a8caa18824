import { randomUUID } from 'node:crypto';
import { StatusError, type KubeObject } from '@kapi/apimachinery';
import type { AsyncConverter } from '@kapi/server';
import type { CustomResourceDefinition } from '../crd/types.js';
import { WebhookClient, type ServiceResolver, type WebhookAnswer } from './webhook-client.js';

const knownReviewVersions = ['v1', 'v1beta1'];

interface ConversionResponse {
  uid?: string;
  convertedObjects?: KubeObject[];
  result?: { status?: string; message?: string };
}

/** Go's schema.GroupVersionKind String(): `group/version, Kind=Kind`. */
function gvkText(object: KubeObject): string {
  return `${object.apiVersion ?? ''}, Kind=${object.kind ?? ''}`;
}

function responseOf(result: WebhookAnswer, uid: string, reviewVersion: string): ConversionResponse {
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
 * The CRD's conversion webhook (strategy Webhook) as the server's asynchronous converter: one
 * ConversionReview (`apiextensions.k8s.io/v1`, or the first of `conversionReviewVersions` this server
 * knows) per batch, holding the objects not already at the target, POSTed to `clientConfig.url` or its
 * `service` (through `resolveService`) trusting `caBundle`. Failures are 500s reading
 * `conversion webhook for <gvk> failed: <reason>`.
 */
export function webhookConverter(crd: CustomResourceDefinition, resolveService?: ServiceResolver): AsyncConverter {
  const { group } = crd.spec;
  const webhook = crd.spec.conversion?.webhook;
  const reviewVersion = (webhook?.conversionReviewVersions ?? ['v1']).find((v) => knownReviewVersions.includes(v)) ?? 'v1';
  const client = WebhookClient.forConversion(crd, resolveService);
  const hubVersion = crd.spec.versions.find((version) => version.storage)?.name ?? '';
  const convert = async (objects: readonly KubeObject[], version: string): Promise<KubeObject[]> => {
    const apiVersion = `${group}/${version}`;
    const pending = objects.filter((object) => object.apiVersion !== apiVersion);
    const first = pending[0];
    if (!first) return [...objects];
    const uid = randomUUID();
    const review = {
      kind: 'ConversionReview',
      apiVersion: `apiextensions.k8s.io/${reviewVersion}`,
      request: { uid, desiredAPIVersion: apiVersion, objects: pending },
    };
    try {
      const converted = responseOf(await client.post(JSON.stringify(review)), uid, reviewVersion).convertedObjects ?? [];
      if (converted.length !== pending.length) throw new Error(`returned ${converted.length} objects, expected ${pending.length}`);
      let next = 0;
      return objects.map((object) => (object.apiVersion === apiVersion ? object : restore(object, converted[next++], apiVersion)));
    } catch (error) {
      throw StatusError.of(500, 'InternalError', `conversion webhook for ${gvkText(first)} failed: ${(error as Error).message}`);
    }
  };
  return { hubVersion, convert };
}
