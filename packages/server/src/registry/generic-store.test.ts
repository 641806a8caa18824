import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, widget, widgetsPath, type TestServer } from '../test-support/test-server.js';

let api: TestServer;

beforeEach(async () => {
  api = await startTestServer({ now: () => new Date('2026-01-02T03:04:05.678Z') });
});
afterEach(async () => {
  await api.close();
});

/** Runs a request expected to fail and checks storage did not change. */
async function failing(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  const before = await api.storage.revision();
  const result = await api.call(method, path, body, headers);
  expect(await api.storage.revision()).toBe(before);
  return result;
}

describe('create', () => {
  it('creates with server-set metadata, defaults, and stores the hub version', async () => {
    const created = await api.call(
      'POST',
      widgetsPath(),
      widget('a', { size: 2 }, { metadata: { name: 'a', labels: { app: 'x' } } }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: {
        name: 'a',
        namespace: 'default',
        generation: 1,
        creationTimestamp: '2026-01-02T03:04:05Z',
        labels: { app: 'x' },
      },
      spec: { size: 2, color: 'blue' },
    });
    const metadata = created.body['metadata'] as Record<string, string>;
    expect(metadata['uid']).toMatch(/^[0-9a-f-]{36}$/);
    expect(metadata['resourceVersion']).toBe(String(await api.storage.revision()));
    expect(await api.storage.keys()).toEqual(['/registry/widgets/default/a']);

    const beta = await api.call('GET', `${widgetsPath('default', 'v1beta1')}/a`);
    expect(beta.body).toMatchObject({ apiVersion: 'example.com/v1beta1', spec: { sizeText: '2' } });
  });

  it('defaults a missing apiVersion and kind from the URL', async () => {
    const created = await api.call('POST', widgetsPath('default', 'v1beta1'), {
      metadata: { name: 'bare' },
      spec: { sizeText: '3' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      apiVersion: 'example.com/v1beta1',
      kind: 'Widget',
      spec: { sizeText: '3' },
    });
  });

  it('creates through an older version and accepts YAML', async () => {
    const yaml =
      'apiVersion: example.com/v1beta1\nkind: Widget\nmetadata:\n  name: yml\nspec:\n  sizeText: "7"\n';
    const created = await api.call('POST', widgetsPath('default', 'v1beta1'), yaml, {
      'Content-Type': 'application/yaml',
    });
    expect(created.status).toBe(201);
    expect((await api.call('GET', `${widgetsPath()}/yml`)).body).toMatchObject({ spec: { size: 7 } });
    const stored = await api.storage.backend.get('/registry/widgets/default/yml');
    const raw = JSON.parse(Buffer.from(stored.entry?.value ?? new Uint8Array()).toString('utf8')) as Record<
      string,
      unknown
    >;
    expect(raw).toMatchObject({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      spec: { size: 7, color: 'blue' },
    });
  });

  it('generates names, drops status on create and supports dryRun', async () => {
    const generated = await api.call('POST', widgetsPath(), {
      ...widget(''),
      metadata: { generateName: 'gen-' },
      status: { phase: 'Ready' },
    });
    expect(generated.status).toBe(201);
    expect((generated.body['metadata'] as { name: string }).name).toMatch(/^gen-[a-z0-9]{5}$/);
    expect(generated.body['status']).toBeUndefined();

    const dry = await failing('POST', `${widgetsPath()}?dryRun=All`, widget('dry'));
    expect(dry.status).toBe(201);
    expect((dry.body['metadata'] as { uid?: string }).uid).toBeDefined();
  });

  it('tries a taken generated name again with a new one: same object, one warning per unknown field', async () => {
    const backend = api.storage.backend;
    const create = backend.create.bind(backend);
    const tried: string[] = [];
    backend.create = async (key, value, options) => {
      tried.push(key);
      // The first generated name is taken.
      if (tried.length === 1) return { succeeded: false, reason: 'condition', revision: await backend.currentRevision() };
      return create(key, value, options);
    };
    const created = await api.call('POST', widgetsPath(), { ...widget('', { size: 3 }), metadata: { generateName: 'gen-' }, extra: 1 });
    expect(created.status).toBe(201);
    expect(tried).toHaveLength(2);
    const name = (created.body['metadata'] as { name: string }).name;
    expect(tried[1]).toBe(`/registry/widgets/default/${name}`);
    expect(tried[0]).not.toBe(tried[1]);
    expect(created.body).toMatchObject({ spec: { size: 3, color: 'blue' }, metadata: { generation: 1 } });
    expect(created.body).not.toHaveProperty('extra');
    expect(created.headers.get('warning')).toBe('299 - "unknown field \\"extra\\""');
  });

  it('rejects bad bodies without touching storage', async () => {
    await api.call('POST', widgetsPath(), widget('a'));
    const exists = await failing('POST', widgetsPath(), widget('a'));
    expect(exists.status).toBe(409);
    expect(exists.body).toMatchObject({
      reason: 'AlreadyExists',
      message: 'widgets.example.com "a" already exists',
    });

    const wrongKind = await failing('POST', widgetsPath(), { ...widget('b'), kind: 'Gadget' });
    expect(wrongKind.status).toBe(400);
    const wrongVersion = await failing('POST', widgetsPath(), {
      ...widget('b'),
      apiVersion: 'example.com/v1beta1',
    });
    expect(wrongVersion.status).toBe(400);
    expect(wrongVersion.body['message']).toBe(
      'the API version in the data (example.com/v1beta1) does not match the expected API version (example.com/v1)',
    );
    const notObject = await failing('POST', widgetsPath(), '[1]');
    expect(notObject.status).toBe(400);

    const invalid = await failing('POST', widgetsPath(), widget('b', { size: -1 }));
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({
      reason: 'Invalid',
      message:
        'Widget.example.com "b" is invalid: spec.size: Invalid value: -1: must be greater than or equal to 0',
      details: { causes: [{ field: 'spec.size', reason: 'FieldValueInvalid' }] },
    });

    const withVersion = await failing('POST', widgetsPath(), {
      ...widget('v'),
      metadata: { name: 'v', resourceVersion: '5' },
    });
    expect(withVersion.status).toBe(400);
    expect(withVersion.body['message']).toBe('resourceVersion should not be set on objects to be created');

    const noName = await failing('POST', widgetsPath(), widget(''));
    expect(noName.status).toBe(422);

    const malformed = await failing('POST', widgetsPath(), '{"apiVersion":');
    expect(malformed.status).toBe(400);
    expect(String(malformed.body['message'])).toContain('json parse error');

    const wrongNamespace = await failing('POST', widgetsPath(), {
      ...widget('c'),
      metadata: { name: 'c', namespace: 'other' },
    });
    expect(wrongNamespace.status).toBe(400);

    const mediaType = await failing('POST', widgetsPath(), 'x', { 'Content-Type': 'text/plain' });
    expect(mediaType.status).toBe(415);

    const huge = await failing(
      'POST',
      widgetsPath(),
      widget('big', { size: 1, color: 'x'.repeat(3_200_000) }),
    );
    expect(huge.status).toBe(413);
    expect(huge.body['message']).toBe('Request entity too large: limit is 3145728');
  });

  it('applies fieldValidation Strict, Warn and Ignore', async () => {
    const strict = await failing(
      'POST',
      `${widgetsPath()}?fieldValidation=Strict`,
      widget('s', { size: 1, foo: 1 }),
    );
    expect(strict.status).toBe(400);
    expect(strict.body['message']).toBe(
      'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.foo"',
    );

    const warn = await api.call('POST', widgetsPath(), widget('w', { size: 1, foo: 1 }));
    expect(warn.status).toBe(201);
    expect(warn.headers.get('warning')).toBe('299 - "unknown field \\"spec.foo\\""');
    expect(warn.body['spec']).toEqual({ size: 1, color: 'blue' });

    const ignore = await api.call(
      'POST',
      `${widgetsPath()}?fieldValidation=Ignore`,
      widget('i', { size: 1, foo: 1 }),
    );
    expect(ignore.headers.get('warning')).toBeNull();
    expect(ignore.body['spec']).toEqual({ size: 1, color: 'blue' });

    const badOption = await failing('POST', `${widgetsPath()}?fieldValidation=Loose`, widget('x'));
    expect(badOption.status).toBe(422);
  });
});

describe('get and list', () => {
  beforeEach(async () => {
    for (const [name, labels] of [
      ['a', { app: 'web' }],
      ['b', { app: 'db' }],
      ['c', { app: 'web' }],
    ] as const) {
      await api.call('POST', widgetsPath(), { ...widget(name), metadata: { name, labels } });
    }
    await api.call('POST', widgetsPath('other'), widget('d'));
  });

  it('answers in YAML when asked', async () => {
    const response = await fetch(`${api.url}${widgetsPath()}/a`, { headers: { Accept: 'application/yaml' } });
    expect(response.headers.get('content-type')).toBe('application/yaml');
    expect(await response.text()).toContain('kind: Widget\n');
  });

  it('pretty-prints for ?pretty=true and curl', async () => {
    const pretty = await fetch(`${api.url}${widgetsPath()}/a?pretty=true`);
    expect(await pretty.text()).toMatch(/^\{\n {2}"apiVersion": "example.com\/v1",\n/);
    const curl = await fetch(`${api.url}${widgetsPath()}/a`, { headers: { 'User-Agent': 'curl/8.0' } });
    expect(await curl.text()).toContain('\n  "kind": "Widget"');
    const compact = await fetch(`${api.url}${widgetsPath()}/a`);
    expect(await compact.text()).not.toContain('\n');
  });

  it('gets one object and 404s a missing one', async () => {
    expect((await api.call('GET', `${widgetsPath()}/a`)).status).toBe(200);
    const missing = await api.call('GET', `${widgetsPath()}/zz`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ reason: 'NotFound', message: 'widgets.example.com "zz" not found' });
  });

  it('lists by namespace, across namespaces, with selectors and pages', async () => {
    const list = await api.call('GET', widgetsPath());
    expect(list.body).toMatchObject({
      kind: 'WidgetList',
      apiVersion: 'example.com/v1',
      metadata: { resourceVersion: String(await api.storage.revision()) },
    });
    expect((list.body['items'] as unknown[]).length).toBe(3);
    const all = await api.call('GET', '/apis/example.com/v1/widgets');
    expect((all.body['items'] as unknown[]).length).toBe(4);

    const selected = await api.call('GET', `${widgetsPath()}?labelSelector=app%3Dweb`);
    expect(
      (selected.body['items'] as Array<{ metadata: { name: string } }>).map((item) => item.metadata.name),
    ).toEqual(['a', 'c']);
    const byField = await api.call(
      'GET',
      `/apis/example.com/v1/widgets?fieldSelector=metadata.namespace%3Dother`,
    );
    expect((byField.body['items'] as unknown[]).length).toBe(1);

    const page = await api.call('GET', `${widgetsPath()}?limit=2`);
    expect((page.body['items'] as unknown[]).length).toBe(2);
    const token = (page.body['metadata'] as { continue: string }).continue;
    expect(token).toBeTruthy();
    const rest = await api.call('GET', `${widgetsPath()}?limit=2&continue=${token}`);
    expect(
      (rest.body['items'] as Array<{ metadata: { name: string } }>).map((item) => item.metadata.name),
    ).toEqual(['c']);

    expect((await api.call('GET', `${widgetsPath()}?labelSelector=a%20b%20c`)).status).toBe(400);
    const unsupportedField = await api.call('GET', `${widgetsPath()}?fieldSelector=spec.size%3D1`);
    expect(unsupportedField.status).toBe(400);
    expect(unsupportedField.body['message']).toBe('field label not supported: spec.size');
    const rvm = await api.call('GET', `${widgetsPath()}?resourceVersionMatch=Exact`);
    expect(rvm.status).toBe(422);
    expect(rvm.body['message']).toBe(
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
  });

  it('serves Table and PartialObjectMetadata', async () => {
    await api.call('PUT', `${widgetsPath()}/a/status`, {
      ...(await api.call('GET', `${widgetsPath()}/a`)).body,
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    const accept = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
    const table = await api.call('GET', `${widgetsPath()}?labelSelector=app%3Dweb`, undefined, accept);
    expect(table.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect((table.body['columnDefinitions'] as Array<{ name: string }>).map((column) => column.name)).toEqual(
      ['Name', 'Size', 'Ready', 'Age'],
    );
    const rows = table.body['rows'] as Array<{ cells: unknown[]; object: { kind: string } }>;
    expect(rows.map((row) => row.cells)).toEqual([
      ['a', 1, 'True', '0s'],
      ['c', 1, null, '0s'],
    ]);
    expect(rows[0]?.object.kind).toBe('PartialObjectMetadata');
    const single = await api.call('GET', `${widgetsPath()}/a?includeObject=Object`, undefined, {
      Accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io',
    });
    expect((single.body['rows'] as Array<{ object: { kind: string } }>)[0]?.object.kind).toBe('Widget');
    const metadata = await api.call('GET', widgetsPath(), undefined, {
      Accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
    });
    expect(metadata.body['kind']).toBe('PartialObjectMetadataList');
  });
});

describe('update', () => {
  it('updates with generation bumps, keeps immutable fields, and checks resourceVersion', async () => {
    const created = (await api.call('POST', widgetsPath(), widget('a'))).body as {
      metadata: Record<string, unknown>;
    };
    const changed = await api.call('PUT', `${widgetsPath()}/a`, {
      ...created,
      metadata: {
        ...created.metadata,
        uid: created.metadata['uid'],
        creationTimestamp: '2000-01-01T00:00:00Z',
        labels: { x: 'y' },
      },
      spec: { size: 5 },
      status: { phase: 'ignored' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      metadata: {
        generation: 2,
        creationTimestamp: '2026-01-02T03:04:05Z',
        labels: { x: 'y' },
        uid: created.metadata['uid'],
      },
      spec: { size: 5 },
    });
    expect(changed.body['status']).toBeUndefined();

    const labelsOnly = await api.call('PUT', `${widgetsPath()}/a`, {
      ...changed.body,
      metadata: { ...(changed.body['metadata'] as object), labels: { x: 'z' } },
    });
    expect(labelsOnly.body).toMatchObject({ metadata: { generation: 2 } });

    const stale = await failing('PUT', `${widgetsPath()}/a`, created);
    expect(stale.status).toBe(409);
    expect(stale.body['message']).toBe(
      'Operation cannot be fulfilled on widgets.example.com "a": the object has been modified; please apply your changes to the latest version and try again',
    );
    const wrongUid = await failing('PUT', `${widgetsPath()}/a`, {
      ...widget('a'),
      metadata: { name: 'a', uid: 'nope' },
    });
    expect(wrongUid.status).toBe(409);
    expect(String(wrongUid.body['message'])).toContain('Precondition failed: UID in precondition: nope');
    const nameMismatch = await failing('PUT', `${widgetsPath()}/a`, widget('b'));
    expect(nameMismatch.status).toBe(400);
    const missing = await failing('PUT', `${widgetsPath()}/zz`, widget('zz'));
    expect(missing.status).toBe(404);
    const dryWrongUid = await failing('PUT', `${widgetsPath()}/a?dryRun=All`, {
      ...widget('a'),
      metadata: { name: 'a', uid: 'nope' },
    });
    expect(dryWrongUid.status).toBe(409);
    const dry = await failing('PUT', `${widgetsPath()}/a?dryRun=All`, { ...widget('a'), spec: { size: 9 } });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({
      spec: { size: 9 },
      metadata: {
        resourceVersion: (labelsOnly.body['metadata'] as { resourceVersion: string }).resourceVersion,
      },
    });
  });

  it('keeps the resourceVersion when a PUT changes nothing', async () => {
    const created = (await api.call('POST', widgetsPath(), widget('a'))).body;
    const same = await failing('PUT', `${widgetsPath()}/a`, created);
    expect(same.status).toBe(200);
    expect(same.body['metadata']).toEqual(created['metadata']);
  });

  it('separates the status subresource from the main resource', async () => {
    const created = (await api.call('POST', widgetsPath(), widget('a'))).body;
    const status = await api.call('PUT', `${widgetsPath()}/a/status`, {
      ...created,
      spec: { size: 100 },
      status: { phase: 'Running' },
    });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      spec: { size: 1 },
      status: { phase: 'Running' },
      metadata: { generation: 1 },
    });
    const main = await api.call('PUT', `${widgetsPath()}/a`, {
      ...status.body,
      spec: { size: 2 },
      status: { phase: 'Lost' },
    });
    expect(main.body).toMatchObject({ spec: { size: 2 }, status: { phase: 'Running' } });
    const gotStatus = await api.call('GET', `${widgetsPath()}/a/status`);
    expect(gotStatus.body).toMatchObject({ status: { phase: 'Running' } });
  });

  it('leaves metadata.generation to the client for a kind that does not track it (as upstream ConfigMaps): set on create, kept on update', async () => {
    await api.close();
    api = await startTestServer({ definition: { tracksGeneration: false } });
    const created = await api.call('POST', widgetsPath(), widget('a'));
    expect(created.status).toBe(201);
    expect((created.body['metadata'] as Record<string, unknown>)['generation']).toBeUndefined();
    // A spec change does not make one; a client's own value is not taken on update.
    const changed = await api.call('PUT', `${widgetsPath()}/a`, { ...created.body, spec: { size: 9 }, metadata: { ...(created.body['metadata'] as object), generation: 7 } });
    expect(changed.status).toBe(200);
    expect((changed.body['metadata'] as Record<string, unknown>)['generation']).toBeUndefined();
    const patched = await api.call('PATCH', `${widgetsPath()}/a`, { spec: { size: 10 } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(patched.status).toBe(200);
    expect((patched.body['metadata'] as Record<string, unknown>)['generation']).toBeUndefined();
    // What a client sends on create is kept, and then never moves.
    const given = await api.call('POST', widgetsPath(), widget('b', { size: 1 }, { metadata: { name: 'b', generation: 4 } }));
    expect(given.body).toMatchObject({ metadata: { generation: 4 } });
    const updated = await api.call('PUT', `${widgetsPath()}/b`, { ...given.body, spec: { size: 2 }, metadata: { ...(given.body['metadata'] as object), generation: 1 } });
    expect(updated.body).toMatchObject({ spec: { size: 2 }, metadata: { generation: 4 } });
  });

  it('creates on update when the strategy allows it, and requires resourceVersion when unconditional updates are off', async () => {
    await api.close();
    api = await startTestServer({
      definition: { strategy: { allowCreateOnUpdate: true, allowUnconditionalUpdate: false } },
    });
    const created = await api.call('PUT', `${widgetsPath()}/n`, widget('n'));
    expect(created.status).toBe(201);
    const unconditional = await failing('PUT', `${widgetsPath()}/n`, widget('n', { size: 3 }));
    expect(unconditional.status).toBe(422);
    expect(unconditional.body['message']).toBe(
      'Widget.example.com "n" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
    );
  });
});

describe('delete', () => {
  it('deletes with preconditions, returning the object', async () => {
    const created = (await api.call('POST', widgetsPath(), widget('a'))).body as {
      metadata: { uid: string };
    };
    const wrong = await failing('DELETE', `${widgetsPath()}/a`, { preconditions: { uid: 'other' } });
    expect(wrong.status).toBe(409);
    const dry = await failing('DELETE', `${widgetsPath()}/a?dryRun=All`);
    expect(dry.status).toBe(200);
    const badPolicy = await failing('DELETE', `${widgetsPath()}/a?propagationPolicy=Sometimes`);
    expect(badPolicy.status).toBe(422);
    const deleted = await api.call('DELETE', `${widgetsPath()}/a?propagationPolicy=Background`, {
      preconditions: { uid: created.metadata.uid },
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ kind: 'Widget', metadata: { name: 'a' } });
    expect(await api.storage.keys()).toEqual([]);
    expect((await api.call('DELETE', `${widgetsPath()}/a`)).status).toBe(404);
  });

  it('marks objects with finalizers and removes them when the finalizers are emptied', async () => {
    await api.call('POST', widgetsPath(), {
      ...widget('f'),
      metadata: { name: 'f', finalizers: ['example.com/hold'] },
    });
    const marked = await api.call('DELETE', `${widgetsPath()}/f`);
    expect(marked.status).toBe(200);
    expect(marked.body).toMatchObject({
      metadata: { deletionTimestamp: '2026-01-02T03:04:05Z', deletionGracePeriodSeconds: 0 },
    });
    expect(await api.storage.keys()).toHaveLength(1);
    const again = await api.call('DELETE', `${widgetsPath()}/f`);
    expect(again.status).toBe(200);
    const before = await api.storage.revision();
    const added = await api.call(
      'PATCH',
      `${widgetsPath()}/f`,
      { metadata: { finalizers: ['example.com/hold', 'more'] } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    expect(added.status).toBe(422);
    expect(String(added.body['message'])).toContain(
      'no new finalizers can be added if the object is being deleted, found new finalizers []string{"more"}',
    );
    expect(await api.storage.revision()).toBe(before);
    const released = await api.call(
      'PATCH',
      `${widgetsPath()}/f`,
      { metadata: { finalizers: null } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    expect(released.status).toBe(200);
    expect(await api.storage.keys()).toEqual([]);
  });

  it('returns a Status when the resource does not return deleted objects, and deletes collections', async () => {
    await api.close();
    api = await startTestServer({ definition: { returnDeletedObject: false } });
    for (const name of ['a', 'b', 'c'])
      await api.call('POST', widgetsPath(), {
        ...widget(name),
        metadata: { name, labels: { keep: String(name === 'c') } },
      });
    const status = await api.call('DELETE', `${widgetsPath()}/a`);
    expect(status.body).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 'a', group: 'example.com', kind: 'widgets' },
    });
    const collection = await api.call('DELETE', `${widgetsPath()}?labelSelector=keep%3Dfalse`);
    expect(collection.status).toBe(200);
    expect(
      (collection.body['items'] as Array<{ metadata: { name: string } }>).map((item) => item.metadata.name),
    ).toEqual(['b']);
    expect(await api.storage.keys()).toEqual(['/registry/widgets/default/c']);
  });
});
