import { afterAll, beforeAll } from 'vitest';
import type { RestClient } from '@kapi/client';
import { startServer, type StartServerOptions, type TestServer } from './harness.js';

/** The server of {@link serverForFile}: read its fields inside tests (they exist once beforeAll ran). */
export interface FileServer {
  readonly server: TestServer;
  /** A REST client with the admin credentials. */
  readonly admin: RestClient;
}

/** Starts one kube-apiserver-lite for the whole test file (beforeAll) and stops it after its tests (afterAll). */
export function serverForFile(options: StartServerOptions = {}): FileServer {
  let started: { server: TestServer; admin: RestClient } | undefined;
  beforeAll(async () => {
    const server = await startServer(options);
    started = { server, admin: server.client() };
  });
  afterAll(async () => {
    await started?.server.stop();
  });
  const get = () => {
    if (!started) throw new Error('the server starts in beforeAll: read it inside a test');
    return started;
  };
  return {
    get server() {
      return get().server;
    },
    get admin() {
      return get().admin;
    },
  };
}
