import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, startServer, type TestServer } from './harness.js';

// Upstream's serviceaccounts-controller, run in process: every Active namespace holds a ServiceAccount
// `default`, created again when deleted, and it does not hold back the namespace's deletion.
let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.stop();
});

/** Polls `read` until it resolves (not rejects), or rethrows its last error after `timeoutMs`. */
async function eventually<T>(read: () => Promise<T>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

const getDefault = (namespace: string) =>
  kubectl(server, ['get', 'sa', 'default', '-n', namespace, '-o', 'jsonpath={.metadata.uid}']).then((uid) => {
    if (!uid) throw new Error('no uid');
    return uid;
  });

describe('service accounts controller', () => {
  it('the system namespaces have a default service account', async () => {
    for (const namespace of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
      await eventually(() => getDefault(namespace));
  });

  it('creates default in a new namespace, again after a delete; tokens work; the namespace deletes', async () => {
    await kubectl(server, ['create', 'ns', 'sa-x']);
    const first = await eventually(() => getDefault('sa-x'));

    await kubectl(server, ['delete', 'sa', 'default', '-n', 'sa-x']);
    const second = await eventually(async () => {
      const uid = await getDefault('sa-x');
      if (uid === first) throw new Error('still the deleted one');
      return uid;
    });
    expect(second).not.toBe(first);

    const token = (await kubectl(server, ['create', 'token', 'default', '-n', 'sa-x'])).trim();
    expect(token.split('.')).toHaveLength(3);
    const whoami = await kubectl(server, [
      'auth',
      'whoami',
      '--token',
      token,
      '-o',
      'jsonpath={.status.userInfo.username}',
    ]);
    expect(whoami).toBe('system:serviceaccount:sa-x:default');

    // kubectl delete waits for the namespace to be gone: the controller does not recreate the account there.
    await kubectl(server, ['delete', 'ns', 'sa-x', '--timeout=30s']);
    await expect(kubectl(server, ['get', 'ns', 'sa-x'])).rejects.toThrow('namespaces "sa-x" not found');
    expect(server.output()).not.toContain('service accounts controller: namespace sa-x');
  });
});
