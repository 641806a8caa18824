import { createHash } from 'node:crypto';
import type { JSONSchema, OpenAPIV2Part } from '@kapi/server';
import type { APIService } from './apiservice-kind.js';
import type { BackendAgents } from './backend-transport.js';
import { backendGet } from './discovery-check.js';
import type { ResolvedEndpoint } from './endpoint-resolver.js';

interface SwaggerDocument {
  paths?: Record<string, JSONSchema>;
  definitions?: Record<string, JSONSchema>;
}

/**
 * What an APIService adds to the aggregator's `/openapi/v2`: the backend's paths under
 * `/apis/<group>/<version>` and its definitions, keyed by the hash of the backend's document (an
 * unchanged document gives `previous` back without parsing it again). Undefined when the backend serves
 * no Swagger document.
 */
export async function fetchOpenAPIV2Part(
  endpoint: ResolvedEndpoint,
  apiService: APIService,
  agents: BackendAgents,
  timeoutMs: number,
  previous: OpenAPIV2Part | undefined,
): Promise<OpenAPIV2Part | undefined> {
  const answer = await backendGet(endpoint, '/openapi/v2', agents.agentFor(apiService, endpoint), timeoutMs);
  if (!answer.body) return undefined;
  const key = createHash('sha256').update(answer.body).digest('hex');
  if (previous?.key === key) return previous;
  let document: SwaggerDocument;
  try {
    document = JSON.parse(answer.body.toString('utf8')) as SwaggerDocument;
  } catch {
    return undefined;
  }
  const prefix = `/apis/${apiService.spec.group ?? ''}/${apiService.spec.version ?? ''}`;
  const paths = Object.fromEntries(
    Object.entries(document.paths ?? {}).filter(([path]) => path === prefix || path === `${prefix}/` || path.startsWith(`${prefix}/`)),
  );
  return { key, paths, definitions: document.definitions ?? {} };
}
