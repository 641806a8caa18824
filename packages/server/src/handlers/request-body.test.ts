import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { decodeObjectBody, readBody } from './request-body.js';

function fakeRequest(body: Buffer, headers: Record<string, string> = {}): IncomingMessage {
  const stream = Readable.from([body]) as unknown as IncomingMessage;
  stream.headers = headers;
  return stream;
}

describe('request bodies', () => {
  it('reads bodies up to the limit and refuses larger ones with 413', async () => {
    expect((await readBody(fakeRequest(Buffer.from('abc')), 3)).toString()).toBe('abc');
    await expect(readBody(fakeRequest(Buffer.from('abcd')), 3)).rejects.toThrow(
      'Request entity too large: limit is 3',
    );
    await expect(readBody(fakeRequest(Buffer.from(''), { 'content-length': '4000000' }))).rejects.toThrow(
      'Request entity too large: limit is 3145728',
    );
  });

  it('decodes JSON and YAML and reports parse errors as 400', () => {
    expect(decodeObjectBody('application/json', Buffer.from('{"a":1}'))).toEqual({ a: 1 });
    expect(decodeObjectBody('application/yaml', Buffer.from('a: 1\nb: [x]\n'))).toEqual({ a: 1, b: ['x'] });
    expect(() => decodeObjectBody('application/json', Buffer.from('{'))).toThrow(
      "couldn't get version/kind; json parse error",
    );
    expect(() => decodeObjectBody('text/plain', Buffer.from('x'))).toThrow(
      'the body of the request was in an unknown format',
    );
  });
});
