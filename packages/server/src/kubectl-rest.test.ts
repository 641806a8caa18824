import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKubeconfig } from './kubeconfig.js';
import { startTestServer, type TestServer } from './test-support/test-server.js';

const kubectlPath = '/usr/bin/kubectl';
const run = promisify(execFile);

/** Real kubectl driving the generic REST handlers of a GenericAPIServer (widgets.example.com). */
describe.runIf(existsSync(kubectlPath))('kubectl against the REST handlers', () => {
  let dir: string;
  let api: TestServer;
  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await run(kubectlPath, ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args], {
      timeout: 20_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
    });
    return stdout;
  };
  const failure = async (...args: string[]): Promise<string> => {
    try {
      await kubectl(...args);
    } catch (error) {
      return String((error as { stderr?: string }).stderr ?? error);
    }
    throw new Error(`kubectl ${args.join(' ')} succeeded`);
  };
  const manifest = (name: string, body: string): string => {
    const path = join(dir, `${name}.yaml`);
    writeFileSync(path, body);
    return path;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kapi-kubectl-rest-'));
    api = await startTestServer();
    writeKubeconfig(join(dir, 'kubeconfig'), { server: api.url, user: { token: 'unused' }, contextName: 'test', namespace: 'default' });
  });
  afterAll(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, lists as a table, applies, patches, labels and deletes', async () => {
    const first = manifest('a', 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: a\nspec:\n  size: 2\n  ports:\n  - name: http\n    port: 80\n');
    expect(await kubectl('create', '-f', first)).toBe('widget.example.com/a created\n');
    const table = await kubectl('get', 'widgets');
    expect(table).toMatch(/^NAME\s+SIZE\s+READY\s+AGE\na\s+2\s+\d+s\n$/);
    expect(await kubectl('get', 'widgets', '-A')).toMatch(/^NAMESPACE\s+NAME\s+SIZE\s+READY\s+AGE\ndefault\s+a\s+2\s+\d+s\n$/);
    expect(JSON.parse(await kubectl('get', 'wd', 'a', '-o', 'json'))).toMatchObject({ kind: 'Widget', spec: { size: 2, color: 'blue' } });

    expect(await kubectl('apply', '-f', first)).toContain('widget.example.com/a');
    const changed = manifest(
      'a2',
      'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: a\nspec:\n  size: 3\n  ports:\n  - name: http\n    port: 8080\n  - name: grpc\n    port: 9\n',
    );
    expect(await kubectl('apply', '-f', changed)).toBe('widget.example.com/a configured\n');
    expect(JSON.parse(await kubectl('get', 'wd', 'a', '-o', 'json'))).toMatchObject({
      spec: { size: 3, ports: [{ name: 'http', port: 8080 }, { name: 'grpc', port: 9 }] },
      metadata: { generation: 2 },
    });

    expect(await kubectl('patch', 'widget', 'a', '--type=merge', '-p', '{"spec":{"size":5}}')).toBe('widget.example.com/a patched\n');
    expect(await kubectl('patch', 'widget', 'a', '--type=json', '-p', '[{"op":"replace","path":"/spec/color","value":"red"}]')).toBe(
      'widget.example.com/a patched\n',
    );
    expect(await kubectl('label', 'widget', 'a', 'tier=web')).toBe('widget.example.com/a labeled\n');
    expect(await kubectl('get', 'widgets', '-l', 'tier=web', '-o', 'name')).toBe('widget.example.com/a\n');
    expect(await kubectl('get', 'wd', 'a', '-o', 'jsonpath={.spec.size} {.spec.color}')).toBe('5 red');

    const strict = manifest('bad', 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: bad\nspec:\n  size: 1\n  bogus: 1\n');
    expect(await failure('create', '-f', strict)).toContain('unknown field "spec.bogus"');
    expect(await failure('get', 'widget', 'missing')).toContain('widgets.example.com "missing" not found');

    expect(await kubectl('delete', 'widget', 'a')).toBe('widget.example.com "a" deleted\n');
    expect(await kubectl('get', 'widgets', '-o', 'name')).toBe('');
  });
});
