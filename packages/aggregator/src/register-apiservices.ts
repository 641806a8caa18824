import { StatusError } from '@kapi/apimachinery';
import type { RestClient } from '@kapi/client';
import type { APIService } from './apiservice-kind.js';
import { automanagedLabel } from './local-apiservices.js';

const path = '/apis/apiregistration.k8s.io/v1/apiservices';

const retryable = new Set([429, 500, 503, 504]);

/** Runs `attempt` until it succeeds, retrying errors the server may stop answering (backoff 100 ms -> 2 s). */
async function withRetries(attempt: () => Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
    try {
      return await attempt();
    } catch (error) {
      if (signal?.aborted || !StatusError.isInstance(error) || !retryable.has(error.status.code ?? 0))
        throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/**
 * Creates the given APIServices, or brings an existing automanaged one's spec and labels to the wanted
 * ones (the start-up registration of a server's own group/versions, as upstream's autoregister
 * controller; an APIService without the automanaged label is someone else's and left alone). Retries
 * while the server answers 429/5xx (e.g. 503 until its storage versions are published).
 */
export async function registerAPIServices(
  client: RestClient,
  apiServices: readonly APIService[],
  signal?: AbortSignal,
): Promise<void> {
  for (const wanted of apiServices) await withRetries(() => register(client, wanted, signal), signal);
}

/**
 * Deletes the named APIServices that carry the automanaged label (one created by anyone else under such a
 * name is left alone, as upstream's autoregister controller does); a missing one is no error. Retries as
 * {@link registerAPIServices}.
 */
export async function unregisterAPIServices(client: RestClient, names: readonly string[], signal?: AbortSignal): Promise<void> {
  for (const name of names) await withRetries(() => unregister(client, name, signal), signal);
}

async function unregister(client: RestClient, name: string, signal: AbortSignal | undefined): Promise<void> {
  const at = `${path}/${encodeURIComponent(name)}`;
  try {
    const current = await client.request<APIService>({ method: 'GET', path: at, ...(signal ? { signal } : {}) });
    if (current.metadata.labels?.[automanagedLabel] === undefined) return;
    const preconditions = { uid: current.metadata.uid, resourceVersion: current.metadata.resourceVersion };
    await client.request({ method: 'DELETE', path: at, body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions }, ...(signal ? { signal } : {}) });
  } catch (error) {
    if (!StatusError.isInstance(error) || error.status.reason !== 'NotFound') throw error;
  }
}

async function register(
  client: RestClient,
  wanted: APIService,
  signal: AbortSignal | undefined,
): Promise<void> {
  const name = wanted.metadata.name ?? '';
  try {
    await client.request({ method: 'POST', path, body: wanted, ...(signal ? { signal } : {}) });
  } catch (error) {
    if (!StatusError.isInstance(error) || error.status.reason !== 'AlreadyExists') throw error;
    const at = `${path}/${encodeURIComponent(name)}`;
    // One created by someone else (no automanaged label) is theirs: left alone, as upstream.
    const current = await client.request<APIService>({ method: 'GET', path: at, ...(signal ? { signal } : {}) });
    if (current.metadata.labels?.[automanagedLabel] === undefined) return;
    const patch = { metadata: { labels: wanted.metadata.labels ?? {} }, spec: wanted.spec };
    await client.request({
      method: 'PATCH',
      path: at,
      body: patch,
      contentType: 'application/merge-patch+json',
      ...(signal ? { signal } : {}),
    });
  }
}
