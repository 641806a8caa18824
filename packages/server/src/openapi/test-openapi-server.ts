import { afterAll, beforeAll, expect } from 'vitest';
import { startTestServer, type TestServer } from '../discovery/test-server.js';
import { createOpenAPIHandler, type OpenAPIOptions } from './openapi-handler.js';

/** A parsed OpenAPI document, navigated freely by the tests. */
export type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test navigation of JSON

/**
 * Test helper (not exported): serves `createOpenAPIHandler(options)` for the enclosing `describe` block.
 * `server()` is the running server; `json(path)` GETs a document, requiring 200.
 */
export function serveOpenAPI(options: OpenAPIOptions): { server: () => TestServer; json: (path: string) => Promise<Doc> } {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(createOpenAPIHandler(options));
  });
  afterAll(() => server.close());
  return {
    server: () => server,
    json: async (path) => {
      const result = await server.get(path);
      expect(result.status, path).toBe(200);
      return JSON.parse(result.text) as Doc;
    },
  };
}
