import type { KubeObject } from '@kapi/apimachinery';
import { GenericAPIServerConfig, type GenericAPIServerOptions } from '../generic-apiserver-config.js';
import type { GenericAPIServer } from '../generic-apiserver.js';
import { ServerMetrics } from '../metrics/index.js';
import type { ResourceDefinition } from '../resource-definition.js';
import { MemoryStorage, MemoryStorageState } from './memory-storage.js';
import { WidgetScheme, widgetDefinition } from './widget-scheme.js';

/** A running test server with the widget resource, and helpers to call it. */
export interface TestServer {
  server: GenericAPIServer;
  url: string;
  state: MemoryStorageState;
  /** `fetch` relative to the server with a JSON body. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }>;
  /** The stored keys and their resourceVersions, to assert a failed request changed nothing. */
  snapshot(): string;
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1:0 serving `widgets.example.com` over in-memory storage. */
export async function startTestServer(
  options: Partial<GenericAPIServerOptions> & { definition?: Partial<ResourceDefinition> } = {},
): Promise<TestServer> {
  const state = new MemoryStorageState();
  const { definition, ...rest } = options;
  const config = new GenericAPIServerConfig({
    scheme: new WidgetScheme(),
    storage: ({ codec }) => new MemoryStorage(state, codec),
    metrics: new ServerMetrics({ defaultMetrics: false }),
    ...rest,
  });
  const server = config.complete().new();
  server.installResource(widgetDefinition(definition));
  const { url } = await server.listen({ host: '127.0.0.1', port: 0 });
  return {
    server,
    url,
    state,
    async call(method, path, body, headers = {}) {
      const init: RequestInit = { method, headers: { ...headers } };
      if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        (init.headers as Record<string, string>)['Content-Type'] ??= 'application/json';
      }
      const response = await fetch(`${url}${path}`, init);
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: response.headers };
    },
    snapshot() {
      return JSON.stringify([...state.entries].map(([key, entry]) => [key, entry.revision, Buffer.from(entry.data).toString()]));
    },
    close: () => server.shutdown(),
  };
}

/** A v1 widget body. */
export function widget(name: string, spec: Record<string, unknown> = { size: 1 }, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec, ...extra };
}

/** The collection path of widgets in a namespace at a version. */
export function widgetsPath(namespace = 'default', version = 'v1'): string {
  return `/apis/example.com/${version}/namespaces/${namespace}/widgets`;
}
