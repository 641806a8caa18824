import { StatusError } from '@kapi/apimachinery';
import type { RestClient } from '@kapi/client';
import type { APIService } from './apiservice-kind.js';

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
 * Creates the given APIServices, or brings an existing one's spec and labels to the wanted ones (the
 * start-up registration of a server's own group/versions, as upstream's autoregister controller). Retries
 * while the server answers 429/5xx (e.g. 503 until its storage versions are published).
 */
export async function registerAPIServices(
  client: RestClient,
  apiServices: readonly APIService[],
  signal?: AbortSignal,
): Promise<void> {
  for (const wanted of apiServices) await withRetries(() => register(client, wanted, signal), signal);
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
    const patch = { metadata: { labels: wanted.metadata.labels ?? {} }, spec: wanted.spec };
    await client.request({
      method: 'PATCH',
      path: `${path}/${encodeURIComponent(name)}`,
      body: patch,
      contentType: 'application/merge-patch+json',
      ...(signal ? { signal } : {}),
    });
  }
}
