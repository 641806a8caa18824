import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { StatusError } from '@kapi/apimachinery';
import type { RestClient } from '@kapi/client';
import { generateCertificateAuthority, issueServingCertificate } from '@kapi/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, startServer, type TestServer } from './harness.js';

const group = 'convert.example.com';

interface Review {
  kind: string;
  apiVersion: string;
  request: { uid: string; desiredAPIVersion: string; objects: Array<Record<string, unknown> & { apiVersion: string; spec?: Record<string, unknown> }> };
}

/** How the test webhook answers: converting (v1 spec.size <-> v2 spec.dimensions.size) or failing. */
let mode: 'convert' | 'fail' | 'wrong-uid' = 'convert';
const reviews: Review[] = [];

function convert(object: Review['request']['objects'][number], desired: string): Record<string, unknown> {
  const spec = object.spec ?? {};
  if (desired.endsWith('/v2')) return { ...object, apiVersion: desired, spec: { dimensions: { size: spec['size'] } }, metadata: { ...(object['metadata'] as object), labels: { converted: 'v2' } } };
  const dimensions = (spec['dimensions'] ?? {}) as Record<string, unknown>;
  return { ...object, apiVersion: desired, spec: { size: dimensions['size'] } };
}

function answer(review: Review): unknown {
  const { uid, desiredAPIVersion, objects } = review.request;
  if (mode === 'fail') return { ...review, response: { uid, result: { status: 'Failure', message: 'the converter is down' } } };
  if (mode === 'wrong-uid') return { ...review, response: { uid: 'other', convertedObjects: [], result: { status: 'Success' } } };
  return { ...review, response: { uid, convertedObjects: objects.map((o) => convert(o, desiredAPIVersion)), result: { status: 'Success' } } };
}

describe('custom resources converted by a conversion webhook over HTTPS', () => {
  let server: TestServer;
  let client: RestClient;
  let webhook: Server;

  beforeAll(async () => {
    const ca = generateCertificateAuthority({ commonName: 'webhook-ca' });
    const serving = issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
    webhook = createServer({ key: serving.privateKeyPem, cert: serving.certificatePem }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
        reviews.push(review);
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify(answer(review)));
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    const port = (webhook.address() as AddressInfo).port;
    server = await startServer();
    client = server.client();
    const schema = (spec: Record<string, unknown>) => ({
      openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } },
    });
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `boxes.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'boxes', singular: 'box', kind: 'Box' },
        versions: [
          { name: 'v1', served: true, storage: true, schema: schema({ size: { type: 'integer' } }) },
          { name: 'v2', served: true, storage: false, schema: schema({ dimensions: { type: 'object', properties: { size: { type: 'integer' } } } }) },
        ],
        conversion: {
          strategy: 'Webhook',
          webhook: {
            conversionReviewVersions: ['v1'],
            clientConfig: { url: `https://127.0.0.1:${port}/convert`, caBundle: Buffer.from(ca.certificatePem).toString('base64') },
          },
        },
      },
    };
    await kubectl(server, ['apply', '-f', '-'], JSON.stringify(crd));
    await kubectl(server, ['wait', '--for=condition=Established', `crd/boxes.${group}`, '--timeout=30s']);
  });

  afterAll(async () => {
    await server?.stop();
    await new Promise((resolve) => webhook?.close(resolve));
  });

  it('reads a stored v1 object at v2 through the webhook, with a v1 ConversionReview', async () => {
    await kubectl(server, ['create', '-f', '-'], JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Box', metadata: { name: 'small', namespace: 'default' }, spec: { size: 2 } }));
    reviews.length = 0;
    const v2 = await client.request<Record<string, unknown>>({ method: 'GET', path: `/apis/${group}/v2/namespaces/default/boxes/small` });
    expect(v2).toMatchObject({ apiVersion: `${group}/v2`, kind: 'Box', spec: { dimensions: { size: 2 } }, metadata: { name: 'small', labels: { converted: 'v2' } } });
    expect(reviews[0]).toMatchObject({
      kind: 'ConversionReview',
      apiVersion: 'apiextensions.k8s.io/v1',
      request: { desiredAPIVersion: `${group}/v2`, objects: [{ apiVersion: `${group}/v1`, spec: { size: 2 } }] },
    });
    // The storage version is read without a call.
    reviews.length = 0;
    await client.request({ method: 'GET', path: `/apis/${group}/v1/namespaces/default/boxes/small` });
    expect(reviews).toHaveLength(0);
  });

  it('stores a v2 create at v1 through the webhook', async () => {
    await kubectl(server, ['create', '-f', '-'], JSON.stringify({ apiVersion: `${group}/v2`, kind: 'Box', metadata: { name: 'big', namespace: 'default' }, spec: { dimensions: { size: 9 } } }));
    const v1 = await client.request<Record<string, unknown>>({ method: 'GET', path: `/apis/${group}/v1/namespaces/default/boxes/big` });
    expect(v1).toMatchObject({ apiVersion: `${group}/v1`, spec: { size: 9 } });
    const listed = await kubectl(server, ['get', `boxes.v2.${group}`, '-o', 'jsonpath={.items[*].spec.dimensions.size}']);
    expect(listed).toBe('9 2');
  });

  it('answers 500 with upstream\'s text when the webhook fails or answers for another uid', async () => {
    const read = () => client.request({ method: 'GET', path: `/apis/${group}/v2/namespaces/default/boxes/small` });
    const refusal = async () => {
      const error = await read().then(() => undefined, (thrown: unknown) => thrown);
      if (!StatusError.isInstance(error)) throw new Error(`expected a refusal, got ${String(error)}`);
      return error.status;
    };
    mode = 'fail';
    expect(await refusal()).toMatchObject({
      code: 500,
      message: `conversion webhook for ${group}/v1, Kind=Box failed: the converter is down`,
    });
    mode = 'wrong-uid';
    const status = await refusal();
    expect(status.code).toBe(500);
    expect(status.message).toMatch(new RegExp(`^conversion webhook for ${group}/v1, Kind=Box failed: expected response.uid="[0-9a-f-]+", got "other"$`));
    mode = 'convert';
    await expect(read()).resolves.toMatchObject({ spec: { dimensions: { size: 2 } } });
  });
});
