import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHandlerChain, requestContext } from './handler.js';
import { withAuthentication } from './with-authentication.js';
import { clientCertAuthenticator } from './client-cert-authenticator.js';
import { createTestCertificates, type TestCertificates } from './test-certificates.js';
import { okHandler, serve, type TestServer } from './test-support.js';

describe('clientCertAuthenticator', () => {
  let certificates: TestCertificates;
  let server: TestServer;
  beforeAll(async () => {
    certificates = createTestCertificates();
    server = await serve(
      buildHandlerChain(
        [withAuthentication({ authenticators: [clientCertAuthenticator()], anonymous: true })],
        okHandler((request) => ({ user: requestContext(request).user })),
      ),
      { ...certificates.server, ca: certificates.ca, requestCert: true, rejectUnauthorized: false },
    );
  });
  afterAll(async () => {
    await server?.close();
    certificates?.dispose();
  });

  it('maps a verified certificate: CN to the user, every O to a group', async () => {
    const client = certificates.client('/CN=alice/O=dev/O=ops');
    const response = await server.send('/api/v1/pods', { tls: { ca: certificates.ca, ...client } });
    expect(response.status).toBe(200);
    expect(response.json?.user).toEqual({ name: 'alice', groups: ['dev', 'ops', 'system:authenticated'] });

    const single = certificates.client('/CN=system:kube-controller-manager/O=system:masters');
    const admin = await server.send('/api/v1/pods', { tls: { ca: certificates.ca, ...single } });
    expect(admin.json?.user).toEqual({
      name: 'system:kube-controller-manager',
      groups: ['system:masters', 'system:authenticated'],
    });
  });

  it('refuses a certificate from another CA (no anonymous fallback)', async () => {
    const stranger = certificates.client('/CN=mallory/O=system:masters', { untrusted: true });
    const response = await server.send('/api/v1/pods', { tls: { ca: certificates.ca, ...stranger } });
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ reason: 'Unauthorized', message: 'Unauthorized' });
  });

  it('has no opinion without a client certificate', async () => {
    const response = await server.send('/api/v1/pods', { tls: { ca: certificates.ca } });
    expect(response.json?.user).toEqual({ name: 'system:anonymous', groups: ['system:unauthenticated'] });
  });

  it('has no opinion on plain HTTP', async () => {
    const plain = await serve(
      buildHandlerChain(
        [withAuthentication({ authenticators: [clientCertAuthenticator()], anonymous: true })],
        okHandler((request) => ({ user: requestContext(request).user })),
      ),
    );
    try {
      expect((await plain.send('/x')).json?.user).toEqual({
        name: 'system:anonymous',
        groups: ['system:unauthenticated'],
      });
    } finally {
      await plain.close();
    }
  });
});
