import type { KubeObject, WatchEvent } from '@kapi/apimachinery';
import type { RestClient } from '@kapi/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookConvertedServer, type ConversionWebhook, type WebhookConvertedServer } from './conversion-webhook.js';
import type { TestServer } from './harness.js';

const group = 'async.convert.example.com';
const boxes = (version: string, namespace: string) => `/apis/${group}/${version}/namespaces/${namespace}/boxes`;

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 20_000) throw new Error('condition not met in 20 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('conversion webhook calls are awaited, not waited for on the event loop', () => {
  let server: TestServer;
  let client: RestClient;
  let webhook: ConversionWebhook;

  let started: WebhookConvertedServer | undefined;

  beforeAll(async () => {
    // Without the migrator: its rewrites of the boxes would call the webhook too.
    started = await startWebhookConvertedServer(group, ['--storage-version-migrator=false']);
    ({ server, client, webhook } = started);
  });

  afterAll(async () => {
    await started?.stop();
  });

  const createBox = (namespace: string, name: string, size: number) =>
    client.request({
      method: 'POST',
      path: boxes('v1', namespace),
      body: { apiVersion: `${group}/v1`, kind: 'Box', metadata: { name }, spec: { size } },
    });

  it('serves other clients (readyz, a ConfigMap list) while a webhook holds its answer', async () => {
    await createBox('default', 'held', 3);
    const order: string[] = [];
    let release = (): void => undefined;
    // Released by the test once the other client was answered, or after 2 s whatever happened.
    const released = new Promise<void>((resolve) => {
      release = resolve;
      setTimeout(resolve, 2000);
    });
    webhook.hold = async () => {
      order.push('webhook called');
      await released;
      order.push('webhook answers');
    };
    const converted = client
      .request<{ spec: unknown }>({ method: 'GET', path: `${boxes('v2', 'default')}/held` })
      .then((box) => {
        order.push('converted GET answered');
        return box;
      });
    await until(() => order.includes('webhook called'));
    const other = server.client();
    const ready = await other.raw({ method: 'GET', path: '/readyz' });
    order.push(`readyz answered ${ready.statusCode}`);
    await other.request({ method: 'GET', path: '/api/v1/namespaces/default/configmaps' });
    order.push('configmaps answered');
    release();
    expect((await converted).spec).toEqual({ dimensions: { size: 3 } });
    webhook.hold = undefined;
    expect(order).toEqual([
      'webhook called',
      'readyz answered 200',
      'configmaps answered',
      'webhook answers',
      'converted GET answered',
    ]);
  });

  it('patches at v2: the current object is converted for the patch, the result stored at v1', async () => {
    await createBox('default', 'patched', 1);
    const patched = await client.request<{ apiVersion: string; spec: unknown }>({
      method: 'PATCH',
      path: `${boxes('v2', 'default')}/patched`,
      contentType: 'application/merge-patch+json',
      body: { spec: { dimensions: { size: 8 } } },
    });
    expect(patched).toMatchObject({ apiVersion: `${group}/v2`, spec: { dimensions: { size: 8 } } });
    const stored = await client.request({ method: 'GET', path: `${boxes('v1', 'default')}/patched` });
    expect(stored).toMatchObject({ apiVersion: `${group}/v1`, spec: { size: 8 } });
  });

  it('converts a LIST with one ConversionReview holding every item', async () => {
    await client.request({ method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: 'listing' } } });
    for (const [index, name] of ['a', 'b', 'c'].entries()) await createBox('listing', name, index);
    webhook.reviews.length = 0;
    const list = await client.request<{ apiVersion: string; items: Array<{ apiVersion: string; spec: unknown }> }>({
      method: 'GET',
      path: boxes('v2', 'listing'),
    });
    expect(list.apiVersion).toBe(`${group}/v2`);
    expect(list.items.map((item) => [item.apiVersion, item.spec])).toEqual([0, 1, 2].map((size) => [`${group}/v2`, { dimensions: { size } }]));
    expect(webhook.reviews).toHaveLength(1);
    expect(webhook.reviews[0]?.request.objects.map((object) => object.spec)).toEqual([{ size: 0 }, { size: 1 }, { size: 2 }]);
    webhook.reviews.length = 0;
    await client.request({ method: 'GET', path: boxes('v1', 'listing') });
    expect(webhook.reviews).toHaveLength(0);
  });

  it('converts each WATCH event in order, one review per event, a held answer delaying only later events', async () => {
    await client.request({ method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: 'watching' } } });
    const list = await client.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: boxes('v2', 'watching') });
    const stream = await client.watch({
      path: boxes('v2', 'watching'),
      query: { resourceVersion: list.metadata.resourceVersion, timeoutSeconds: 30 },
    });
    const events: WatchEvent[] = [];
    const reading = (async () => {
      for await (const event of stream) events.push(event);
    })().catch(() => undefined);
    webhook.reviews.length = 0;
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The first event's conversion is held: the events after it must still arrive after it.
    webhook.hold = (review) => (review.request.objects[0]?.metadata as { name?: string }).name === 'w0' ? released : Promise.resolve();
    for (let index = 0; index < 4; index += 1) await createBox('watching', `w${index}`, index);
    await until(() => webhook.reviews.length >= 1);
    expect(events).toHaveLength(0);
    release();
    await until(() => events.length >= 4);
    webhook.hold = undefined;
    stream.stop();
    await reading;
    const objects = events.map((event) => [event.type, event.object as KubeObject] as const);
    expect(objects.map(([type, object]) => [type, object.metadata.name, object['spec']])).toEqual(
      [0, 1, 2, 3].map((size) => ['ADDED', `w${size}`, { dimensions: { size } }]),
    );
    expect(webhook.reviews.map((review) => review.request.objects.length)).toEqual([1, 1, 1, 1]);
  });
});
