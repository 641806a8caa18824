import { StatusError } from '@kapi/apimachinery';
import type { RestClient } from '@kapi/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConversionWebhook, webhookConvertedCRD, type ConversionWebhook } from './conversion-webhook.js';
import { kubectl, startServer, type TestServer } from './harness.js';

const group = 'service.convert.example.com';

describe('a conversion webhook registered by clientConfig.service', () => {
  let server: TestServer;
  let client: RestClient;
  let webhook: ConversionWebhook;

  const create = (path: string, body: unknown) => client.request({ method: 'POST', path, body });
  const establish = async (crd: Record<string, unknown>, name: string) => {
    await kubectl(server, ['apply', '-f', '-'], JSON.stringify(crd));
    await kubectl(server, ['wait', '--for=condition=Established', `crd/${name}`, '--timeout=30s']);
  };

  beforeAll(async () => {
    // The certificate names only the Service's DNS name: the TLS server name must be `<name>.<namespace>.svc`.
    webhook = await startConversionWebhook(['box-converter.default.svc']);
    server = await startServer();
    client = server.client();
    await create('/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'box-converter' },
      spec: { ports: [{ name: 'https', port: 443, targetPort: 9443 }] },
    });
    await create('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'box-converter-1', labels: { 'kubernetes.io/service-name': 'box-converter' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
      ports: [{ name: 'https', port: webhook.port }],
    });
    const service = (name: string) => ({ service: { namespace: 'default', name, path: '/convert' }, caBundle: webhook.caBundle });
    await establish(webhookConvertedCRD(group, 'Box', service('box-converter')), `boxes.${group}`);
    await establish(webhookConvertedCRD(group, 'Crate', service('missing')), `cratees.${group}`);
  });

  afterAll(async () => {
    await server?.stop();
    await webhook?.close();
  });

  it('converts through the Service\'s EndpointSlice address, verifying <name>.<namespace>.svc', async () => {
    await create(`/apis/${group}/v1/namespaces/default/boxes`, { apiVersion: `${group}/v1`, kind: 'Box', metadata: { name: 'routed' }, spec: { size: 5 } });
    const read = () => client.request<{ apiVersion: string; spec: unknown }>({ method: 'GET', path: `/apis/${group}/v2/namespaces/default/boxes/routed` });
    // The aggregator's Service and EndpointSlice caches may not hold the objects yet.
    let converted = await read().catch(() => undefined);
    for (let attempt = 0; !converted && attempt < 50; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      converted = await read().catch(() => undefined);
    }
    expect(converted).toMatchObject({ apiVersion: `${group}/v2`, spec: { dimensions: { size: 5 } } });
    expect(webhook.reviews.at(-1)?.request).toMatchObject({ desiredAPIVersion: `${group}/v2`, objects: [{ spec: { size: 5 } }] });
  });

  it('answers 500 with upstream\'s text when the Service does not exist', async () => {
    await create(`/apis/${group}/v1/namespaces/default/cratees`, { apiVersion: `${group}/v1`, kind: 'Crate', metadata: { name: 'stray' }, spec: { size: 1 } });
    const error = await client
      .request({ method: 'GET', path: `/apis/${group}/v2/namespaces/default/cratees/stray` })
      .then(() => undefined, (thrown: unknown) => thrown);
    if (!StatusError.isInstance(error)) throw new Error(`expected a refusal, got ${String(error)}`);
    expect(error.status).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message: `conversion webhook for ${group}/v1, Kind=Crate failed: Post "https://missing.default.svc:443/convert?timeout=30s": service "missing" not found`,
    });
  });
});
