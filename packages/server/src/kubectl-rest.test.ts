import { execFile, spawn } from 'node:child_process';
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
// Skipped where kubectl is missing, except in CI (CI=true), where a missing kubectl must fail the run.
describe.runIf(existsSync(kubectlPath) || process.env['CI'] === 'true')('kubectl against the REST handlers', () => {
  let dir: string;
  let api: TestServer;
  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await run(
      kubectlPath,
      ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args],
      {
        timeout: 20_000,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
      },
    );
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
    writeKubeconfig(join(dir, 'kubeconfig'), {
      server: api.url,
      user: { token: 'unused' },
      contextName: 'test',
      namespace: 'default',
    });
  });
  afterAll(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, lists as a table, applies, patches, labels and deletes', async () => {
    const first = manifest(
      'a',
      'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: a\nspec:\n  size: 2\n  ports:\n  - name: http\n    port: 80\n',
    );
    expect(await kubectl('create', '-f', first)).toBe('widget.example.com/a created\n');
    const table = await kubectl('get', 'widgets');
    expect(table).toMatch(/^NAME\s+SIZE\s+READY\s+AGE\na\s+2\s+\d+s\n$/);
    expect(await kubectl('get', 'widgets', '-A')).toMatch(
      /^NAMESPACE\s+NAME\s+SIZE\s+READY\s+AGE\ndefault\s+a\s+2\s+\d+s\n$/,
    );
    expect(JSON.parse(await kubectl('get', 'wd', 'a', '-o', 'json'))).toMatchObject({
      kind: 'Widget',
      spec: { size: 2, color: 'blue' },
    });

    expect(await kubectl('apply', '-f', first)).toContain('widget.example.com/a');
    const changed = manifest(
      'a2',
      'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: a\nspec:\n  size: 3\n  ports:\n  - name: http\n    port: 8080\n  - name: grpc\n    port: 9\n',
    );
    expect(await kubectl('apply', '-f', changed)).toBe('widget.example.com/a configured\n');
    expect(JSON.parse(await kubectl('get', 'wd', 'a', '-o', 'json'))).toMatchObject({
      spec: {
        size: 3,
        ports: [
          { name: 'http', port: 8080 },
          { name: 'grpc', port: 9 },
        ],
      },
      metadata: { generation: 2 },
    });

    expect(await kubectl('patch', 'widget', 'a', '--type=merge', '-p', '{"spec":{"size":5}}')).toBe(
      'widget.example.com/a patched\n',
    );
    expect(
      await kubectl(
        'patch',
        'widget',
        'a',
        '--type=json',
        '-p',
        '[{"op":"replace","path":"/spec/color","value":"red"}]',
      ),
    ).toBe('widget.example.com/a patched\n');
    expect(await kubectl('label', 'widget', 'a', 'tier=web')).toBe('widget.example.com/a labeled\n');
    expect(await kubectl('get', 'widgets', '-l', 'tier=web', '-o', 'name')).toBe('widget.example.com/a\n');
    expect(await kubectl('get', 'wd', 'a', '-o', 'jsonpath={.spec.size} {.spec.color}')).toBe('5 red');

    const strict = manifest(
      'bad',
      'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: bad\nspec:\n  size: 1\n  bogus: 1\n',
    );
    expect(await failure('create', '-f', strict)).toContain('unknown field "spec.bogus"');
    expect(await failure('get', 'widget', 'missing')).toContain('widgets.example.com "missing" not found');

    const replaced = manifest(
      'a3',
      (await kubectl('get', 'wd', 'a', '-o', 'yaml')).replace('size: 5', 'size: 6'),
    );
    expect(await kubectl('replace', '-f', replaced)).toBe('widget.example.com/a replaced\n');
    const dry = manifest(
      'dry',
      'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: dry\nspec:\n  size: 1\n',
    );
    expect(await kubectl('create', '-f', dry, '--dry-run=server')).toBe(
      'widget.example.com/dry created (server dry run)\n',
    );
    expect(await kubectl('get', 'widgets', '-o', 'name', '--chunk-size=1')).toBe('widget.example.com/a\n');

    expect(await kubectl('delete', 'widget', 'a')).toBe('widget.example.com "a" deleted\n');
    expect(await kubectl('get', 'widgets', '-o', 'name')).toBe('');
  });

  it('watches with kubectl get -w', async () => {
    const child = spawn(
      kubectlPath,
      [
        '--kubeconfig',
        join(dir, 'kubeconfig'),
        '--cache-dir',
        join(dir, 'cache'),
        'get',
        'widgets',
        '-w',
        '--output-watch-events',
      ],
      {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
      },
    );
    let output = '';
    const seen = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (/MODIFIED\s+w\s+4/.test(output)) resolve();
      });
    });
    try {
      for (let attempt = 0; attempt < 100 && api.storage.activeWatches === 0; attempt += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      await kubectl(
        'create',
        '-f',
        manifest('w', 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n'),
      );
      await kubectl('patch', 'widget', 'w', '--type=merge', '-p', '{"spec":{"size":4}}');
      await seen;
      expect(output).toMatch(
        /^EVENT\s+NAME\s+SIZE\s+READY\s+AGE\nADDED\s+w\s+3\s+\d+s\nMODIFIED\s+w\s+4\s+\d+s\n/,
      );
    } finally {
      child.kill();
    }
  });
});
