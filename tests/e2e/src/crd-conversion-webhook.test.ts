import { StatusError } from '@kapi/apimachinery';
import { sleep, type RestClient } from '@kapi/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookConvertedServer, type ConversionWebhook, type WebhookConvertedServer, type Review } from './conversion-webhook.js';
import { kubectl, type TestServer } from './harness.js';

const group = 'convert.example.com';

/** How the test webhook answers instead of converting. */
const failures = {
  fail: ({ request }: Review) => ({ response: { uid: request.uid, result: { status: 'Failure', message: 'the converter is down' } } }),
  'wrong-uid': () => ({ response: { uid: 'other', convertedObjects: [], result: { status: 'Success' } } }),
};

describe('custom resources converted by a conversion webhook over HTTPS', () => {
  let server: TestServer;
  let client: RestClient;
  let webhook: ConversionWebhook;
  const reviews = () => webhook.reviews;

  let started: WebhookConvertedServer | undefined;

  beforeAll(async () => {
    started = await startWebhookConvertedServer(group, ['--storage-version-migrator=false']);
    ({ server, client, webhook } = started);
  });

  afterAll(async () => {
    await started?.stop();
  });

  it('reads a stored v1 object at v2 through the webhook, with a v1 ConversionReview', async () => {
    await kubectl(server, ['create', '-f', '-'], JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Box', metadata: { name: 'small', namespace: 'default' }, spec: { size: 2 } }));
    reviews().length = 0;
    const v2 = await client.request<Record<string, unknown>>({ method: 'GET', path: `/apis/${group}/v2/namespaces/default/boxes/small` });
    expect(v2).toMatchObject({ apiVersion: `${group}/v2`, kind: 'Box', spec: { dimensions: { size: 2 } }, metadata: { name: 'small', labels: { converted: 'v2' } } });
    expect(reviews()[0]).toMatchObject({
      kind: 'ConversionReview',
      apiVersion: 'apiextensions.k8s.io/v1',
      request: { desiredAPIVersion: `${group}/v2`, objects: [{ apiVersion: `${group}/v1`, spec: { size: 2 } }] },
    });
    // The storage version is read without a call.
    reviews().length = 0;
    await client.request({ method: 'GET', path: `/apis/${group}/v1/namespaces/default/boxes/small` });
    expect(reviews()).toHaveLength(0);
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
    webhook.respond = failures.fail;
    expect(await refusal()).toMatchObject({
      code: 500,
      message: `conversion webhook for ${group}/v1, Kind=Box failed: the converter is down`,
    });
    webhook.respond = failures['wrong-uid'];
    const status = await refusal();
    expect(status.code).toBe(500);
    expect(status.message).toMatch(new RegExp(`^conversion webhook for ${group}/v1, Kind=Box failed: expected response.uid="[0-9a-f-]+", got "other"$`));
    webhook.respond = undefined;
    await expect(read()).resolves.toMatchObject({ spec: { dimensions: { size: 2 } } });
  });

  it('closes a watch whose event the webhook cannot convert, with no ERROR event (as upstream\'s watch server)', async () => {
    const boxes = `/apis/${group}/v2/namespaces/default/boxes`;
    const list = await client.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: `/apis/${group}/v1/namespaces/default/boxes` });
    const stream = await client.watch({ path: boxes, query: { resourceVersion: list.metadata.resourceVersion, timeoutSeconds: 120 } });
    const events: unknown[] = [];
    const reading = (async () => {
      for await (const event of stream) events.push(event);
      return 'closed';
    })().catch((error: unknown) => `failed: ${String(error)}`);
    webhook.respond = failures.fail;
    try {
      await kubectl(server, ['create', '-f', '-'], JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Box', metadata: { name: 'unconverted', namespace: 'default' }, spec: { size: 1 } }));
      // Far below the watch's own timeout: the stream must have been closed because of the failure.
      const outcome = await Promise.race([reading, sleep(30_000).then(() => 'still open')]);
      expect(outcome).toBe('closed');
      expect(events).toEqual([]);
    } finally {
      webhook.respond = undefined;
      stream.stop();
    }
  });
});
