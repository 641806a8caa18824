import { describe, expect, it } from 'vitest';
import { kubectl } from './harness.js';
import { serverForFile } from './server-for-file.js';

// apiregistration.k8s.io/v1 APIServices on kube-apiserver-lite, as kubectl sees them.
const shared = serverForFile();
const path = '/apis/apiregistration.k8s.io/v1/apiservices';

async function post(body: unknown) {
  const response = await shared.admin.raw({ method: 'POST', path, body });
  return {
    code: response.statusCode,
    body: JSON.parse(response.body.toString() || '{}') as Record<string, unknown>,
  };
}

const apiService = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name },
  spec,
});

describe('APIServices', () => {
  it('registers a local, Available APIService for every served built-in group/version', async () => {
    const out = await kubectl(shared.server, ['get', 'apiservices']);
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/);
    for (const name of [
      'v1.',
      'v1.coordination.k8s.io',
      'v1.rbac.authorization.k8s.io',
      'v2.autoscaling',
      'v1.authentication.k8s.io',
    ]) {
      expect(
        lines.some((line) => new RegExp(`^${name.replace(/\./g, '\\.')}\\s+Local\\s+True\\s+`).test(line)),
        `${name} in\n${out}`,
      ).toBe(true);
    }
    const core = await shared.admin.request<{
      metadata: { labels: Record<string, string> };
      spec: Record<string, unknown>;
      status: { conditions: unknown[] };
    }>({
      method: 'GET',
      path: `${path}/v1.`,
    });
    expect(core.metadata.labels).toMatchObject({ 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    expect(core.spec).toMatchObject({
      group: '',
      version: 'v1',
      groupPriorityMinimum: 18000,
      versionPriority: 1,
    });
    expect(core.status.conditions).toMatchObject([
      {
        type: 'Available',
        status: 'True',
        reason: 'Local',
        message: 'Local APIServices are always available',
      },
    ]);
  });

  it('creates a remote APIService with its status cleared and the service port defaulted', async () => {
    const created = await post({
      ...apiService('v1alpha1.wardle.example.com', {
        group: 'wardle.example.com',
        version: 'v1alpha1',
        service: { namespace: 'wardle', name: 'api' },
        insecureSkipTLSVerify: true,
        groupPriorityMinimum: 1000,
        versionPriority: 15,
      }),
      status: { conditions: [{ type: 'Available', status: 'True', reason: 'Lying' }] },
    });
    expect(created.code).toBe(201);
    expect(created.body['spec']).toMatchObject({ service: { namespace: 'wardle', name: 'api', port: 443 } });
    expect(created.body['status']).toEqual({});
    // The availability controller then finds no Service (Unknown until it has looked).
    const out = await kubectl(shared.server, ['get', 'apiservice', 'v1alpha1.wardle.example.com', '--no-headers']);
    expect(out).toMatch(/^v1alpha1\.wardle\.example\.com\s+wardle\/api\s+(Unknown|False \(ServiceNotFound\))\s+/);

    await shared.admin.request({
      method: 'PATCH',
      path: `${path}/v1alpha1.wardle.example.com/status`,
      contentType: 'application/merge-patch+json',
      body: {
        status: {
          conditions: [
            { type: 'Available', status: 'False', reason: 'ServiceNotFound', message: 'service/api in "wardle" is not present' },
          ],
        },
      },
    });
    const after = await kubectl(shared.server, ['get', 'apiservice', 'v1alpha1.wardle.example.com', '--no-headers']);
    expect(after).toMatch(/^v1alpha1\.wardle\.example\.com\s+wardle\/api\s+False \(ServiceNotFound\)\s+/);
  });

  it('refuses invalid APIServices with upstream messages and stores nothing', async () => {
    const wrongName = await post(
      apiService('wardle', {
        group: 'wardle.example.com',
        version: 'v1beta1',
        groupPriorityMinimum: 1000,
        versionPriority: 15,
      }),
    );
    expect(wrongName.code).toBe(422);
    expect(wrongName.body['message']).toBe(
      'APIService.apiregistration.k8s.io "wardle" is invalid: metadata.name: Invalid value: "wardle": must be `spec.version+"."+spec.group`: "v1beta1.wardle.example.com"',
    );

    const priorities = await post(
      apiService('v1beta1.wardle.example.com', {
        group: 'wardle.example.com',
        version: 'v1beta1',
        groupPriorityMinimum: 20001,
        versionPriority: 0,
      }),
    );
    expect(priorities.code).toBe(422);
    expect(priorities.body['message']).toBe(
      'APIService.apiregistration.k8s.io "v1beta1.wardle.example.com" is invalid: [spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000, spec.versionPriority: Invalid value: 0: must be positive and less than 1000]',
    );

    const localTls = await post(
      apiService('v1.local.example.com', {
        group: 'local.example.com',
        version: 'v1',
        insecureSkipTLSVerify: true,
        groupPriorityMinimum: 1000,
        versionPriority: 15,
      }),
    );
    expect(localTls.code).toBe(422);
    expect(localTls.body['message']).toContain(
      'spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify',
    );

    const both = await post(
      apiService('v1.both.example.com', {
        group: 'both.example.com',
        version: 'v1',
        service: { namespace: 'x', name: 'y' },
        caBundle: Buffer.from('not a real CA').toString('base64'),
        insecureSkipTLSVerify: true,
        groupPriorityMinimum: 1000,
        versionPriority: 15,
      }),
    );
    expect(both.code).toBe(422);
    expect(both.body['message']).toContain(
      'spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present',
    );

    const emptyGroup = await post(
      apiService('v2.', { group: '', version: 'v2', groupPriorityMinimum: 1000, versionPriority: 15 }),
    );
    expect(emptyGroup.code).toBe(422);
    expect(emptyGroup.body['message']).toContain(
      'spec.group: Required value: only v1 may have an empty group and it better be legacy kube',
    );

    const names = (await kubectl(shared.server, ['get', 'apiservices', '-o', 'name'])).split('\n');
    for (const refused of [
      'wardle',
      'v1beta1.wardle.example.com',
      'v1.local.example.com',
      'v1.both.example.com',
      'v2.',
    ]) {
      expect(names).not.toContain(`apiservice.apiregistration.k8s.io/${refused}`);
    }
  });

  it('registers a local APIService for each group/version a CRD serves, and removes it with the CRD (upstream crdRegistrationController)', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.registration.example.com' },
      spec: {
        group: 'registration.example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
          { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
          { name: 'v0', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
        ],
      },
    };
    await kubectl(shared.server, ['apply', '-f', '-'], JSON.stringify(crd));
    const listed = async () => (await kubectl(shared.server, ['get', 'apiservices', '-o', 'name'])).split('\n');
    const until = async (done: (names: string[]) => boolean) => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const names = await listed();
        if (done(names)) return names;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`APIServices did not settle: ${(await listed()).join(' ')}`);
    };
    const name = (version: string) => `apiservice.apiregistration.k8s.io/${version}.registration.example.com`;
    const names = await until((current) => current.includes(name('v1')) && current.includes(name('v2')));
    expect(names).not.toContain(name('v0'));
    const v2 = await kubectl(shared.server, ['get', 'apiservice', 'v2.registration.example.com', '-o', 'json']);
    expect(JSON.parse(v2)).toMatchObject({
      metadata: { labels: { 'kube-aggregator.kubernetes.io/automanaged': 'true' } },
      spec: { group: 'registration.example.com', version: 'v2', groupPriorityMinimum: 1000, versionPriority: 100 },
    });
    expect(await kubectl(shared.server, ['get', 'apiservice', 'v1.registration.example.com'])).toMatch(/v1\.registration\.example\.com\s+Local\s+True/);
    // A version no longer served loses its APIService; the CRD's deletion removes the rest.
    crd.spec.versions[1] = { ...crd.spec.versions[1]!, served: false };
    await kubectl(shared.server, ['apply', '-f', '-'], JSON.stringify(crd));
    await until((current) => current.includes(name('v1')) && !current.includes(name('v2')));
    await kubectl(shared.server, ['delete', 'crd', 'gadgets.registration.example.com']);
    await until((current) => !current.includes(name('v1')));
  });
});
