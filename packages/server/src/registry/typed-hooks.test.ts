import { Scheme, Type, kindSchema, type KubeObject } from '@kapi/apimachinery';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, widgetsPath, type TestServer } from '../test-support/test-server.js';
import { GROUP } from '../test-support/widget-scheme.js';

type Parts = { parts?: Array<{ name: string }> };

/** A Widget kind whose defaulter and validator trust the schema's types, as a Go kind's do. */
function trustingScheme(): Scheme {
  const scheme = new Scheme();
  scheme.addKind({
    group: GROUP,
    version: 'v1',
    kind: 'Widget',
    schema: kindSchema({ group: GROUP, version: 'v1', kind: 'Widget', spec: Type.Object({ parts: Type.Optional(Type.Array(Type.Object({ name: Type.String() }))) }) }),
    defaulter: (object: KubeObject) => {
      for (const part of (object['spec'] as Parts | undefined)?.parts ?? []) part.name = part.name.toLowerCase();
    },
    validator: (object: KubeObject) =>
      ((object['spec'] as Parts | undefined)?.parts ?? []).some((part) => part.name.trim() === '')
        ? [{ field: 'spec.parts', type: 'FieldValueRequired', detail: 'a part needs a name' }]
        : [],
  });
  return scheme;
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ scheme: trustingScheme(), definition: { versions: ['v1'], subresources: {}, printerColumns: [] } });
});
afterAll(() => server.close());

const widget = (name: string, spec: unknown) => ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name }, spec });

describe("a kind's defaulter and validator over HTTP", () => {
  it('default and validate a well-typed create', async () => {
    const created = await server.call('POST', widgetsPath(), widget('good', { parts: [{ name: 'Gear' }] }));
    expect(created.status).toBe(201);
    expect(created.body['spec']).toEqual({ parts: [{ name: 'gear' }] });
    const refused = await server.call('POST', widgetsPath(), widget('blank', { parts: [{ name: ' ' }] }));
    expect(refused.status).toBe(422);
    expect(refused.body['message']).toContain('a part needs a name');
  });

  it('never see a value of the wrong type: the create is 400 in the words of Go\'s decoder, and nothing is stored', async () => {
    // The JSON type and the field path as Go reports them (nested struct type names are not known here).
    for (const [name, spec, message] of [
      ['string', { parts: 'gear' }, 'json: cannot unmarshal string into Go struct field WidgetSpec.spec.parts of type []'],
      ['number', { parts: [{ name: 7 }] }, 'json: cannot unmarshal number into Go struct field WidgetSpec.spec.parts.name of type string'],
      ['item', { parts: [true] }, 'json: cannot unmarshal bool into Go struct field WidgetSpec.spec.parts of type '],
    ] as const) {
      const response = await server.call('POST', widgetsPath(), widget(name, spec));
      expect(response.status, name).toBe(400);
      expect(response.body['reason']).toBe('BadRequest');
      expect(response.body['message']).toContain(`Widget in version "v1" cannot be handled as a Widget: ${message}`);
      expect((await server.call('GET', `${widgetsPath()}/${name}`)).status).toBe(404);
    }
  });
});
