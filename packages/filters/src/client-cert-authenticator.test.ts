import { Agent, request } from 'node:https';
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

  it('authenticates every request of a keep-alive connection as its own certificate says, connections apart', async () => {
    const agents = [
      new Agent({ keepAlive: true, maxSockets: 1, ca: certificates.ca, ...certificates.client('/CN=alice/O=dev') }),
      new Agent({ keepAlive: true, maxSockets: 1, ca: certificates.ca, ...certificates.client('/CN=bob/O=ops') }),
      new Agent({ keepAlive: true, maxSockets: 1, ca: certificates.ca }),
    ];
    const get = (agent: Agent) =>
      new Promise<{ user: unknown; reused: boolean }>((resolve, reject) => {
        const outgoing = request(`${server.url}/api/v1/pods`, { agent }, (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('end', () =>
            resolve({ user: (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { user: unknown }).user, reused: outgoing.reusedSocket }),
          );
        });
        outgoing.on('error', reject);
        outgoing.end();
      });
    try {
      const answers = [];
      for (let round = 0; round < 3; round++) for (const agent of agents) answers.push(await get(agent));
      expect(answers.slice(3).every((answer) => answer.reused)).toBe(true);
      expect(answers.map((answer) => answer.user)).toEqual(
        Array.from({ length: 3 }, () => [
          { name: 'alice', groups: ['dev', 'system:authenticated'] },
          { name: 'bob', groups: ['ops', 'system:authenticated'] },
          { name: 'system:anonymous', groups: ['system:unauthenticated'] },
        ]).flat(),
      );
    } finally {
      for (const agent of agents) agent.destroy();
    }
  });

  it('reads the certificate once per HTTP/2 connection, whose requests each have a socket proxy of their own', () => {
    const authenticate = clientCertAuthenticator();
    let reads = 0;
    const peer = { subject: { CN: 'carol', O: 'dev' }, serialNumber: '01' };
    const session = {};
    const streamRequest = () =>
      ({
        socket: { authorized: true, getPeerCertificate: () => (reads++, peer) },
        stream: { session },
      }) as unknown as Parameters<typeof authenticate>[0];
    const users = [authenticate(streamRequest()), authenticate(streamRequest()), authenticate(streamRequest())];
    expect(users).toEqual(Array.from({ length: 3 }, () => ({ name: 'carol', groups: ['dev'] })));
    expect(reads).toBe(1);
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
