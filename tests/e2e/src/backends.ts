import { startEtcd } from '@kapi/storage-etcd3/testing';
import { startServer, type StartServerOptions, type TestServer } from './harness.js';

/** The storage backends the real-client suites run on. */
export const backends = ['sqlite', 'etcd'] as const;
export type Backend = (typeof backends)[number];

/** Options of {@link startServerOn}. */
export interface StartServerOnOptions extends StartServerOptions {
  /** etcd's own progress notify interval (etcd only; default 1 s). */
  etcdProgressNotifyIntervalMs?: number;
}

/**
 * Starts kube-apiserver-lite on the given backend (for etcd, a real etcd started on a free loopback port
 * and stopped with the server).
 */
export async function startServerOn(backend: Backend, options: StartServerOnOptions = {}): Promise<TestServer> {
  if (backend === 'sqlite')
    return startServer({ ...options, args: ['--storage=sqlite', ...(options.args ?? [])] });
  const etcd = await startEtcd({ progressNotifyIntervalMs: options.etcdProgressNotifyIntervalMs ?? 1000 });
  try {
    const server = await startServer({
      ...options,
      args: ['--storage=etcd', `--etcd-servers=${etcd.endpoint}`, ...(options.args ?? [])],
    });
    const stop = server.stop.bind(server);
    server.stop = async () => {
      await stop();
      await etcd.stop();
    };
    return server;
  } catch (error) {
    await etcd.stop();
    throw error;
  }
}
