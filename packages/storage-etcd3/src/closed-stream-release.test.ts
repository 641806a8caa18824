import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseClosedHttp2Streams } from './closed-stream-release.js';

const module = fileURLToPath(new URL('./closed-stream-release.ts', import.meta.url));

/**
 * Bytes promoted to the old generation per request in a child process that sends 2,000 HTTP/2 requests
 * one after another, each stream with a listener that holds ~24 KB (as grpc-js's listeners hold its
 * call), after releaseClosedHttp2Streams() when `release`. Allocation-site pretenuring is off, so that
 * objects which keep surviving are promoted by scavenges (and counted) rather than allocated old.
 */
function promotedPerRequest(release: boolean): number {
  const script = `
    const { releaseClosedHttp2Streams } = await import(${JSON.stringify(module)});
    const http2 = (await import('node:http2')).default;
    if (${String(release)}) releaseClosedHttp2Streams();
    const server = http2.createServer((request, response) => response.end('ok'));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const session = http2.connect('http://127.0.0.1:' + server.address().port);
    const one = () => new Promise((resolve, reject) => {
      const held = Array.from({ length: 1000 }, (_, i) => ({ i }));
      const stream = session.request({ ':path': '/' });
      stream.on('data', () => { held.length; });
      stream.on('end', resolve);
      stream.on('error', reject);
    });
    for (let i = 0; i < 200; i++) await one();
    console.log('MEASURE-START');
    for (let i = 0; i < 2000; i++) await one();
    console.log('MEASURE-END');
    session.close();
    server.close();
  `;
  const output = execFileSync(process.execPath, ['--trace-gc-nvp', '--no-allocation-site-pretenuring', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const measured = output.slice(output.indexOf('MEASURE-START'), output.indexOf('MEASURE-END'));
  const promoted = [...measured.matchAll(/ gc=s .* promoted=(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
  return promoted / 2000;
}

describe('releaseClosedHttp2Streams', () => {
  it('lets scavenges reclaim what a finished client stream’s listeners held', () => {
    const kept = promotedPerRequest(false);
    const released = promotedPerRequest(true);
    // Without it, each request's ~24 KB is copied to the old generation; with it, only node's own stream state.
    expect(kept).toBeGreaterThan(10_000);
    expect(released).toBeLessThan(kept / 3);
  }, 120_000);

  describe('in this process', () => {
    let server: http2.Http2Server;
    let origin: string;
    beforeAll(async () => {
      releaseClosedHttp2Streams();
      server = http2.createServer((_request, response) => response.end('x'.repeat(100_000)));
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => server.close());

    it('removes the listeners of a stream read to its end, keeping an error listener', async () => {
      const session = http2.connect(origin);
      const stream = session.request({ ':path': '/' });
      stream.on('data', () => undefined);
      stream.on('end', () => undefined);
      await once(stream, 'close');
      await new Promise((resolve) => setImmediate(resolve));
      expect(stream.listenerCount('data')).toBe(0);
      expect(stream.listenerCount('end')).toBe(0);
      expect(stream.listenerCount('error')).toBe(1);
      session.close();
    });

    it('does not cut off a reader that takes its time', async () => {
      const session = http2.connect(origin);
      const stream = session.request({ ':path': '/' });
      let bytes = 0;
      for await (const chunk of stream) {
        bytes += (chunk as Buffer).length;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(bytes).toBe(100_000);
      session.close();
    });
  });
});
