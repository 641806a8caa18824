import type { KubeObject } from '@kapi/apimachinery';
import { Store, type Codec, type Interface, type Watch } from '@kapi/storage';
import { MemoryBackend } from '@kapi/storage-memory';
import { GenericAPIServerConfig, type GenericAPIServerOptions } from '../generic-apiserver-config.js';
import type { GenericAPIServer } from '../generic-apiserver.js';
import { ServerMetrics } from '../metrics/index.js';
import type { ResourceDefinition } from '../resource-definition.js';
import type { StorageFactory } from '../storage-factory.js';
import { widgetDefinition, widgetScheme } from './widget-scheme.js';

/** One shared MemoryBackend with a Store per resource, counting open watches and closed stores. */
export class TestStorage {
  readonly backend: MemoryBackend;
  activeWatches = 0;
  closedStores = 0;

  /** The StorageFactory handing out counted Stores over the shared backend. */
  readonly factory: StorageFactory = ({ codec }) => this.store(codec);

  constructor(options: { progressNotifyIntervalMs?: number } = {}) {
    this.backend = new MemoryBackend(options);
  }

  private store(codec: Codec): Interface {
    const store = new Store({ kv: this.backend, codec });
    const watch = store.watch.bind(store);
    const close = store.close.bind(store);
    store.watch = async (...args: Parameters<Store['watch']>): Promise<Watch> => {
      const started = await watch(...args);
      this.activeWatches += 1;
      void started.done.then(() => (this.activeWatches -= 1));
      return started;
    };
    store.close = async () => {
      this.closedStores += 1;
      await close();
    };
    return store;
  }

  /** Every stored key. */
  async keys(): Promise<string[]> {
    const result = await this.backend.range({ key: '/', prefix: true });
    return result.entries.map((entry) => entry.key);
  }

  /** The backend revision: any write moves it. */
  async revision(): Promise<number> {
    return this.backend.currentRevision();
  }
}

/** A running test server with the widget resource, and helpers to call it. */
export interface TestServer {
  server: GenericAPIServer;
  url: string;
  storage: TestStorage;
  /** `fetch` relative to the server with a JSON body. */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }>;
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1:0 serving `widgets.example.com` over an in-memory Store. */
export async function startTestServer(
  options: Partial<GenericAPIServerOptions> & {
    definition?: Partial<ResourceDefinition>;
    progressNotifyIntervalMs?: number;
  } = {},
): Promise<TestServer> {
  const { definition, progressNotifyIntervalMs, ...rest } = options;
  const storage = new TestStorage(progressNotifyIntervalMs === undefined ? {} : { progressNotifyIntervalMs });
  const config = new GenericAPIServerConfig({
    scheme: widgetScheme(),
    storage: storage.factory,
    metrics: new ServerMetrics({ defaultMetrics: false }),
    ...rest,
  });
  const server = config.complete().new();
  server.installResource(widgetDefinition(definition));
  const { url } = await server.listen({ host: '127.0.0.1', port: 0 });
  return {
    server,
    url,
    storage,
    async call(method, path, body, headers = {}) {
      const requestHeaders: Record<string, string> = { ...headers };
      const init: RequestInit = { method, headers: requestHeaders };
      if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        requestHeaders['Content-Type'] ??= 'application/json';
      }
      const response = await fetch(`${url}${path}`, init);
      const text = await response.text();
      return {
        status: response.status,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
        headers: response.headers,
      };
    },
    close: () => server.shutdown(),
  };
}

/** A v1 widget body. */
export function widget(
  name: string,
  spec: Record<string, unknown> = { size: 1 },
  extra: Partial<KubeObject> = {},
): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec, ...extra };
}

/** The collection path of widgets in a namespace at a version. */
export function widgetsPath(namespace = 'default', version = 'v1'): string {
  return `/apis/example.com/${version}/namespaces/${namespace}/widgets`;
}
