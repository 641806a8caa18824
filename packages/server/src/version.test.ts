import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './discovery/test-server.js';
import { createVersionHandler, versionInfo } from './version.js';

describe('/version', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(createVersionHandler(versionInfo({ gitCommit: 'abc123' })));
  });
  afterAll(() => server.close());

  it('serves version.Info with kubectl-compatible fields', async () => {
    const result = await server.get('/version');
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toBe('application/json');
    const info = JSON.parse(result.text) as Record<string, string>;
    expect(info).toMatchObject({
      major: '1',
      minor: '34+',
      gitVersion: 'v1.34.0-kapi',
      gitCommit: 'abc123',
      gitTreeState: 'clean',
      goVersion: process.version,
    });
    expect(info.platform).toMatch(/^[a-z0-9]+\/[a-z0-9]+$/);
    expect(Object.keys(info)).toEqual(
      expect.arrayContaining(['buildDate', 'compiler', 'platform', 'major', 'minor', 'gitVersion']),
    );
  });

  it('derives major/minor from a release gitVersion', () => {
    expect(versionInfo({ gitVersion: 'v1.33.2' })).toMatchObject({ major: '1', minor: '33' });
  });

  it('leaves other paths and rejects writes', async () => {
    expect((await server.get('/versions')).status).toBe(404);
    const post = await fetch(`${server.url}/version`, { method: 'POST' });
    expect(post.status).toBe(405);
  });
});
