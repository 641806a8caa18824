import { describe, expect, it } from 'vitest';
import { serverForFile } from './server-for-file.js';

const shared = serverForFile();

const path = '/api/v1/namespaces/default/configmaps';

async function names(): Promise<string[]> {
  const list = await shared.admin.request<{ items: Array<{ metadata: { name: string } }> }>({ method: 'GET', path });
  return list.items.map((item) => item.metadata.name).sort();
}

const body = (name: string) =>
  Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } }));

async function create(name: string, contentType: string) {
  const response = await shared.admin.raw({ method: 'POST', path, body: body(name), contentType });
  return {
    code: response.statusCode,
    status: JSON.parse(response.body.toString() || '{}') as { reason?: string; message?: string },
  };
}

describe('Content-Type parsed as Go mime.ParseMediaType', () => {
  // Each of these fails Go's mime.ParseMediaType, so upstream's NegotiateInputSerializer answers 415.
  it.each([
    ['application/json;;;'],
    ['application/json; charset'],
    ['application/json; charset=utf-8; charset=latin1'],
    ['application/json; charset="utf-8'],
    ['application/'],
    ['/json'],
    ['application/json/extra'],
    ['application json'],
    ['garbage/\u00e9'],
  ])('%j -> 415 UnsupportedMediaType, nothing stored', async (contentType) => {
    const before = await names();
    const result = await create('malformed', contentType);
    expect(result.code).toBe(415);
    expect(result.status.reason).toBe('UnsupportedMediaType');
    expect(result.status.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: ' +
        'application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
    expect(await names()).toEqual(before);
  });

  it.each([
    ['application/json;', 'trailing-semicolon'],
    ['Application/JSON ; charset = "utf-8"', 'quoted-charset'],
    ['application/json; charset=utf-8; charset=utf-8', 'same-parameter-twice'],
  ])('%j is well formed -> 201', async (contentType, name) => {
    const result = await create(name, contentType);
    expect(result.code).toBe(201);
  });
});

describe('Accept negotiated as upstream', () => {
  it('an Accept naming nothing the server produces -> 406 NotAcceptable', async () => {
    for (const accept of ['garbage', 'text/html', 'application/xml;q=1']) {
      const response = await shared.admin.raw({ method: 'GET', path, accept });
      expect(response.statusCode, accept).toBe(406);
      const status = JSON.parse(response.body.toString()) as { reason?: string; message?: string };
      expect(status.reason).toBe('NotAcceptable');
      expect(status.message).toMatch(/^only the following media types are accepted: application\/json/);
    }
  });

  it('malformed parameters in Accept are ignored as goautoneg does -> 200 JSON', async () => {
    const response = await shared.admin.raw({ method: 'GET', path, accept: 'application/json;;;' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });
});
