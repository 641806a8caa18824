import { StatusError, type KubeObject } from '@kapi/apimachinery';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, widget, widgetsPath, type TestServer } from '../test-support/test-server.js';
import { widgetScheme } from '../test-support/widget-scheme.js';
import type { AsyncConverter } from './async-converter.js';

/** The widget scheme's conversions behind a promise, recording what each call had to convert. */
function recordingConverter(): AsyncConverter & { calls: string[][]; failing: boolean } {
  const scheme = widgetScheme();
  const converter = {
    hubVersion: 'v1',
    calls: [] as string[][],
    failing: false,
    async convert(objects: readonly KubeObject[], version: string): Promise<KubeObject[]> {
      const apiVersion = `example.com/${version}`;
      const pending = objects.filter((object) => object.apiVersion !== apiVersion);
      if (pending.length === 0) return [...objects];
      converter.calls.push(pending.map((object) => object.metadata.name ?? ''));
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (converter.failing) throw StatusError.of(500, 'InternalError', 'the converter is down');
      return objects.map((object) => scheme.convert(object, { group: 'example.com', version }));
    },
  };
  return converter;
}

/** Reads `count` lines of a watch response (fewer if it ends). */
async function watchLines(response: Response, count: number): Promise<Array<{ type: string; object: Record<string, unknown> }>> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (text.split('\n').length <= count) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; object: Record<string, unknown> });
}

describe('a resource converted by an asynchronous converter', () => {
  let api: TestServer | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('converts a LIST in one call, a GET and a create body through it', async () => {
    const converter = recordingConverter();
    api = await startTestServer({ definition: { converter } });
    for (const name of ['a', 'b']) expect((await api.call('POST', widgetsPath(), widget(name, { size: 2 }))).status).toBe(201);
    expect(converter.calls).toEqual([]);
    const list = await api.call('GET', widgetsPath('default', 'v1beta1'));
    expect((list.body['items'] as KubeObject[]).map((item) => [item.apiVersion, item['spec']])).toEqual([
      ['example.com/v1beta1', { sizeText: '2', color: 'blue' }],
      ['example.com/v1beta1', { sizeText: '2', color: 'blue' }],
    ]);
    expect(converter.calls).toEqual([['a', 'b']]);
    const created = await api.call('POST', widgetsPath('default', 'v1beta1'), {
      apiVersion: 'example.com/v1beta1',
      kind: 'Widget',
      metadata: { name: 'c' },
      spec: { sizeText: '7' },
    });
    expect(created.body).toMatchObject({ apiVersion: 'example.com/v1beta1', spec: { sizeText: '7' } });
    expect((await api.call('GET', `${widgetsPath()}/c`)).body).toMatchObject({ spec: { size: 7 } });
    expect((await api.call('GET', `${widgetsPath('default', 'v1beta1')}/a`)).body).toMatchObject({ spec: { sizeText: '2' } });
    expect(converter.calls.slice(1)).toEqual([['c'], ['c'], ['a']]);
  });

  it('converts watch events one call each, in order, and closes the watch without an event when a call fails (as upstream)', async () => {
    const converter = recordingConverter();
    api = await startTestServer({ definition: { converter } });
    const watch = await fetch(`${api.url}${widgetsPath('default', 'v1beta1')}?watch=1`);
    for (const name of ['w0', 'w1', 'w2']) await api.call('POST', widgetsPath(), widget(name, { size: 3 }));
    const events = await watchLines(watch, 3);
    expect(events.map((event) => [event.type, (event.object['metadata'] as { name: string }).name, event.object['spec']])).toEqual(
      ['w0', 'w1', 'w2'].map((name) => ['ADDED', name, { sizeText: '3', color: 'blue' }]),
    );
    expect(converter.calls).toEqual([['w0'], ['w1'], ['w2']]);

    converter.failing = true;
    const failing = await fetch(`${api.url}${widgetsPath('default', 'v1beta1')}?watch=1`);
    await api.call('POST', widgetsPath(), widget('w3'));
    // Read until the server ends the response: no event, no ERROR.
    const ended = await watchLines(failing, 10);
    expect(ended).toEqual([]);
  });
});
