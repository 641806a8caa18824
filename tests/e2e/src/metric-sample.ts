import type { RestClient } from '@kapi/client';
import { sleep } from '@kapi/client';

/** The value of the sample of `name` whose labels include `labels` (undefined when there is none). */
export async function sample(client: RestClient, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const text = (await client.raw({ method: 'GET', path: '/metrics', accept: 'text/plain' })).body.toString('utf8');
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const close = line.lastIndexOf('}');
    const pairs = line.slice(name.length + 1, close).split(',');
    if (wanted.every((pair) => pairs.includes(pair))) return Number(line.slice(close + 1).trim());
  }
  return undefined;
}

/** Polls `sample` until `accept` holds (10 s at most); the last value read. */
export async function sampleUntil(
  client: RestClient,
  name: string,
  labels: Record<string, string>,
  accept: (value: number) => boolean,
): Promise<number | undefined> {
  let value: number | undefined;
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(200)) {
    value = await sample(client, name, labels);
    if (value !== undefined && accept(value)) break;
  }
  return value;
}
