import { RestClient, loadKubeconfig } from '@kapi/client';
import { generateCertificateAuthority } from '@kapi/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './harness.js';

/**
 * The REST client's TLS (its CA and client certificate travel in one secure context): the server's CA is
 * trusted and no other, verification can be skipped, and the admin kubeconfig's client certificate is the
 * identity the server sees.
 */
describe('RestClient over TLS', () => {
  let server: TestServer;
  const clients: RestClient[] = [];
  const clientOf = (config: ConstructorParameters<typeof RestClient>[0]) => {
    const client = new RestClient(config);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await server.stop();
  });

  it('trusts the CA it was given and no other, unless told to skip verification', async () => {
    const config = loadKubeconfig(server.kubeconfig);
    expect(config.ca).toBeTruthy();
    expect(await clientOf(config).request<{ gitVersion: string }>({ method: 'GET', path: '/version' })).toHaveProperty('gitVersion');
    const otherCa = generateCertificateAuthority({ commonName: 'not-the-server-ca' }).certificatePem;
    await expect(clientOf({ ...config, ca: otherCa }).request({ method: 'GET', path: '/version' })).rejects.toThrow(/certificate/i);
    const skipping = clientOf({ ...config, ca: otherCa, insecureSkipTLSVerify: true });
    expect(await skipping.request({ method: 'GET', path: '/version' })).toHaveProperty('gitVersion');
  });

  it("authenticates with the kubeconfig's client certificate", async () => {
    const config = loadKubeconfig(server.kubeconfig);
    expect(config.cert && config.key).toBeTruthy();
    expect(config.token).toBeUndefined();
    const secrets = await clientOf(config).request<{ kind: string }>({ method: 'GET', path: '/api/v1/namespaces/default/secrets' });
    expect(secrets.kind).toBe('SecretList');
    // Without the certificate the same client is anonymous, which may not read secrets.
    const anonymous = clientOf({ server: config.server, ...(config.ca ? { ca: config.ca } : {}) });
    await expect(anonymous.request({ method: 'GET', path: '/api/v1/namespaces/default/secrets' })).rejects.toMatchObject({ code: 403 });
  });
});
