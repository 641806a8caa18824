import type { RestClient } from '@kapi/client';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customResourceDefinition, until } from './crd-fixtures.js';
import { kubectl, startServer, type TestServer } from './harness.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/crds');
const rules = '/apis/monitoring.coreos.com/v1/namespaces/default/prometheusrules';

/** A PrometheusRule whose one group sets `partial_response_strategy` (schema pattern `^(?i)(abort|warn)?$`). */
const rule = (name: string, strategy: string) => ({
  apiVersion: 'monitoring.coreos.com/v1',
  kind: 'PrometheusRule',
  metadata: { name },
  spec: { groups: [{ name: 'g', partial_response_strategy: strategy, rules: [{ record: 'r', expr: 'up' }] }] },
});

/**
 * Schema `pattern`s are Go (RE2) regular expressions, as upstream compiles them: the prometheus-operator
 * PrometheusRule CRD's case-insensitive `(?i)` pattern validates custom resources (JavaScript's RegExp
 * has no inline flags: it answered 500), and a pattern RE2 refuses is refused at CRD create with
 * upstream's message.
 */
describe('schema patterns of custom resources (RE2 syntax)', () => {
  let server: TestServer;
  let client: RestClient;

  beforeAll(async () => {
    server = await startServer();
    client = server.client();
    await kubectl(server, ['apply', '-f', join(fixtures, 'prometheus-operator/monitoring.coreos.com_prometheusrules.yaml')]);
    await kubectl(server, ['wait', '--for=condition=Established', 'crd/prometheusrules.monitoring.coreos.com', '--timeout=30s']);
    await until('prometheusrules served', async () => (await client.raw({ method: 'GET', path: rules })).statusCode, (code) => code === 200);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('validates with inline flags: any case of abort/warn is accepted, anything else is 422 naming the pattern', async () => {
    for (const [name, strategy] of [['lower', 'warn'], ['upper', 'ABORT'], ['mixed', 'Warn'], ['empty', '']]) {
      const created = await client.raw({ method: 'POST', path: rules, body: rule(name ?? '', strategy ?? '') });
      expect({ strategy, status: created.statusCode }).toEqual({ strategy, status: 201 });
    }
    const refused = await client.raw({ method: 'POST', path: rules, body: rule('bogus', 'sometimes') });
    expect(refused.statusCode).toBe(422);
    const status = JSON.parse(refused.body.toString()) as { message: string; details: { causes: Array<{ field: string; message: string }> } };
    expect(status.details.causes).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.groups[0].partial_response_strategy',
      message: `Invalid value: "sometimes": spec.groups[0].partial_response_strategy in body should match '^(?i)(abort|warn)?$'`,
    });
    expect((await client.raw({ method: 'GET', path: `${rules}/bogus` })).statusCode).toBe(404);
  });

  it('refuses at CRD create a pattern that is not a valid RE2 expression', async () => {
    const crd = customResourceDefinition({
      group: 'patterns.example.com',
      kind: 'Widget',
      spec: { type: 'object', properties: { code: { type: 'string', pattern: '+' }, ok: { type: 'string', pattern: '(?s)^a.b$' } } },
    });
    const created = await client.raw({ method: 'POST', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', body: crd });
    expect(created.statusCode).toBe(422);
    const status = JSON.parse(created.body.toString()) as { details: { causes: Array<{ field: string; message: string }> } };
    const causes = status.details.causes.filter((cause) => cause.field.endsWith('.pattern'));
    expect(causes.map((cause) => cause.field)).toEqual(['spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[code].pattern']);
    expect(causes[0]?.message).toMatch(/^Invalid value: "\+": must be a valid regular expression, but isn't: /);
  });
});
