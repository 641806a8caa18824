import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startServerOn } from './backends.js';
import { kubectl, type TestServer } from './harness.js';

describe.each(backends)('kubectl against kube-apiserver-lite on %s', (backend) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServerOn(backend);
  });

  afterAll(async () => {
    await server?.stop();
  });

  const configMap = (name: string, data: Record<string, string>) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'default', labels: { app: 'e2e' } },
      data,
    });

  it('lists the API resources with their short names and groups', async () => {
    const out = await kubectl(server, ['api-resources', '--no-headers']);
    for (const line of [
      'configmaps',
      'namespaces',
      'leases',
      'horizontalpodautoscalers',
      'clusterroles',
      'storageversions',
    ]) {
      expect(out).toContain(line);
    }
    expect(out).toMatch(/configmaps\s+cm\s+v1\s+true\s+ConfigMap/);
    expect(out).toMatch(/horizontalpodautoscalers\s+hpa\s+autoscaling\/v2\s+true\s+HorizontalPodAutoscaler/);
  });

  it("lists the API groups in upstream's order (APIService priority) and an APIService for each", async () => {
    const groups = (
      JSON.parse(await kubectl(server, ['get', '--raw', '/apis'])) as { groups: Array<{ name: string }> }
    ).groups.map((group) => group.name);
    const builtIn = [
      'apiregistration.k8s.io',
      'events.k8s.io',
      'authentication.k8s.io',
      'authorization.k8s.io',
      'autoscaling',
      'rbac.authorization.k8s.io',
      'admissionregistration.k8s.io',
      'apiextensions.k8s.io',
      'coordination.k8s.io',
      'discovery.k8s.io',
    ];
    expect(groups.filter((group) => builtIn.includes(group))).toEqual(builtIn);
    // The built-in groups come before every other (custom resource groups get priority 1000).
    expect(groups.slice(0, builtIn.length)).toEqual(builtIn);
    const apiServices = await kubectl(server, ['get', 'apiservices', '-o', 'name']);
    for (const name of ['v1.events.k8s.io', 'v1.apiregistration.k8s.io', 'v1beta1.storagemigration.k8s.io'])
      expect(apiServices).toContain(`apiservice.apiregistration.k8s.io/${name}`);
  });

  it('shows the system namespaces with real table columns', async () => {
    const out = await kubectl(server, ['get', 'namespaces']);
    expect(out.split('\n')[0]).toMatch(/^NAME\s+STATUS\s+AGE/);
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
      expect(out).toMatch(new RegExp(`${name}\\s+Active`));
  });

  it('creates from a file, gets as a table and as yaml', async () => {
    await kubectl(server, ['create', '-f', '-'], configMap('created', { a: '1', b: '2' }));
    const table = await kubectl(server, ['get', 'configmap', 'created', '-n', 'default']);
    expect(table).toMatch(/^NAME\s+DATA\s+AGE/);
    expect(table).toMatch(/created\s+2\s+\d+s/);
    const yaml = await kubectl(server, ['get', 'cm', 'created', '-n', 'default', '-o', 'yaml']);
    expect(yaml).toContain('kind: ConfigMap');
    expect(yaml).toMatch(/resourceVersion: "\d+"/);
    expect(yaml).toMatch(/uid: [0-9a-f-]{36}/);
    // A ConfigMap has no generation, as on a real cluster (its upstream strategy keeps none).
    expect(yaml).not.toContain('generation:');
  });

  it('applies twice: create, then update', async () => {
    const first = await kubectl(server, ['apply', '-f', '-'], configMap('applied', { a: '1' }));
    expect(first).toContain('configmap/applied created');
    const second = await kubectl(server, ['apply', '-f', '-'], configMap('applied', { a: '2', c: '3' }));
    expect(second).toContain('configmap/applied configured');
    const out = JSON.parse(
      await kubectl(server, ['get', 'cm', 'applied', '-n', 'default', '-o', 'json']),
    ) as { data: Record<string, string> };
    expect(out.data).toEqual({ a: '2', c: '3' });
  });

  it('patches with each patch type', async () => {
    await kubectl(server, ['create', 'configmap', 'patched', '-n', 'default', '--from-literal=a=1']);
    await kubectl(server, [
      'patch',
      'cm',
      'patched',
      '-n',
      'default',
      '--type=merge',
      '-p',
      '{"data":{"b":"2"}}',
    ]);
    await kubectl(server, [
      'patch',
      'cm',
      'patched',
      '-n',
      'default',
      '--type=json',
      '-p',
      '[{"op":"replace","path":"/data/a","value":"10"}]',
    ]);
    await kubectl(server, [
      'patch',
      'cm',
      'patched',
      '-n',
      'default',
      '--type=strategic',
      '-p',
      '{"metadata":{"labels":{"tier":"x"}}}',
    ]);
    const out = JSON.parse(
      await kubectl(server, ['get', 'cm', 'patched', '-n', 'default', '-o', 'json']),
    ) as { data: Record<string, string>; metadata: { labels: Record<string, string> } };
    expect(out.data).toEqual({ a: '10', b: '2' });
    expect(out.metadata.labels).toEqual({ tier: 'x' });
  });

  it('applies server-side: creates, configures, reports conflicts, forces, prunes, shows managedFields', async () => {
    const manifest = (data: Record<string, string>) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'ssa', namespace: 'default' },
        data,
      });
    const data = async () =>
      (
        JSON.parse(await kubectl(server, ['get', 'cm', 'ssa', '-n', 'default', '-o', 'json'])) as {
          data: Record<string, string>;
        }
      ).data;
    const created = await kubectl(
      server,
      ['apply', '--server-side', '-f', '-'],
      manifest({ a: '1', b: '2' }),
    );
    expect(created).toContain('configmap/ssa serverside-applied');
    await kubectl(server, ['apply', '--server-side', '-f', '-'], manifest({ a: '1', b: '2', c: '3' }));
    expect(await data()).toEqual({ a: '1', b: '2', c: '3' });
    await expect(
      kubectl(server, ['apply', '--server-side', '--field-manager=other', '-f', '-'], manifest({ a: '9' })),
    ).rejects.toThrow(/Apply failed with 1 conflict: conflict with "kubectl": \.data\.a/);
    expect((await data())['a']).toBe('1');
    await kubectl(
      server,
      ['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', '-'],
      manifest({ a: '9' }),
    );
    expect((await data())['a']).toBe('9');
    // kubectl no longer applies a (now owned by other) nor b (owned by nobody else): b is pruned.
    await kubectl(server, ['apply', '--server-side', '-f', '-'], manifest({ c: '3' }));
    expect(await data()).toEqual({ a: '9', c: '3' });
    const yaml = await kubectl(server, [
      'get',
      'cm',
      'ssa',
      '-n',
      'default',
      '-o',
      'yaml',
      '--show-managed-fields',
    ]);
    expect(yaml).toMatch(
      /- apiVersion: v1\n\s+fieldsType: FieldsV1\n\s+fieldsV1:\n\s+f:data:\n\s+f:c: \{\}\n\s+manager: kubectl\n\s+operation: Apply/,
    );
    expect(yaml).toMatch(/f:a: \{\}\n\s+manager: other\n\s+operation: Apply/);
    expect(await kubectl(server, ['get', 'cm', 'ssa', '-n', 'default', '-o', 'yaml'])).not.toContain(
      'managedFields',
    );
  });

  it('moves a client-side applied object to server-side apply without conflicts', async () => {
    const manifest = (a: string) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'migrated', namespace: 'default' },
        data: { a },
      });
    await kubectl(server, ['apply', '-f', '-'], manifest('1'));
    await kubectl(server, ['apply', '--server-side', '-f', '-'], manifest('2'));
    const out = JSON.parse(
      await kubectl(server, [
        'get',
        'cm',
        'migrated',
        '-n',
        'default',
        '-o',
        'json',
        '--show-managed-fields',
      ]),
    ) as {
      data: Record<string, string>;
      metadata: {
        annotations: Record<string, string>;
        managedFields: Array<{ manager: string; operation: string }>;
      };
    };
    expect(out.data).toEqual({ a: '2' });
    expect(
      JSON.parse(out.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'] ?? '{}'),
    ).toMatchObject({
      data: { a: '2' },
    });
    expect(out.metadata.managedFields.map((entry) => [entry.manager, entry.operation])).toContainEqual([
      'kubectl',
      'Apply',
    ]);
  });

  it('deletes', async () => {
    await kubectl(server, ['create', 'configmap', 'doomed', '-n', 'default']);
    expect(await kubectl(server, ['delete', 'cm', 'doomed', '-n', 'default'])).toContain(
      'configmap "doomed" deleted',
    );
    await expect(kubectl(server, ['get', 'cm', 'doomed', '-n', 'default'])).rejects.toThrow(
      /NotFound|not found/,
    );
  });

  it('watches with get -w', async () => {
    const child = spawn(process.env.KUBECTL ?? 'kubectl', [
      '--kubeconfig',
      server.kubeconfig,
      'get',
      'cm',
      '-n',
      'default',
      '-w',
      '--output-watch-events',
    ]);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      const deadline = Date.now() + 15_000;
      while (!out.includes('NAME') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await kubectl(server, ['create', 'configmap', 'watched', '-n', 'default']);
      while (!/ADDED\s+watched/.test(out) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(out).toMatch(/ADDED\s+watched/);
    } finally {
      child.kill();
    }
  });

  it('explains a resource from the OpenAPI schema', async () => {
    const out = await kubectl(server, ['explain', 'horizontalpodautoscalers.spec']);
    expect(out).toContain('maxReplicas');
    expect(out).toContain('scaleTargetRef');
  });

  it('explains built-in fields with upstream descriptions', async () => {
    // kubectl wraps descriptions: compare with runs of whitespace collapsed.
    const explain = async (...args: string[]) =>
      (await kubectl(server, ['explain', ...args])).replace(/\s+/g, ' ');
    const data = await explain('configmap.data');
    expect(data).toContain(
      'Data contains the configuration data. Each key must consist of alphanumeric characters',
    );
    expect(data).not.toContain('<no description>');
    expect(await explain('configmap')).toContain('ConfigMap holds configuration data for pods to consume.');
    expect(await explain('role.rules.verbs')).toContain(
      'Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule.',
    );
    expect(await explain('lease.spec.holderIdentity')).toContain(
      'holderIdentity contains the identity of the holder of a current lease.',
    );
    expect(await explain('endpointslices.addressType')).toContain(
      'addressType specifies the type of address carried by this EndpointSlice.',
    );
    expect(await explain('endpointslices.endpoints.targetRef.uid')).toContain('UID of the referent.');
    expect(await explain('events.note', '--api-version=events.k8s.io/v1')).toContain(
      'note is a human-readable description of the status of this operation.',
    );
    expect(await explain('apiservices')).toContain(
      'APIService represents a server for a particular GroupVersion. Name must be "version.group".',
    );
    expect(await explain('apiservices.spec.groupPriorityMinimum')).toContain(
      'GroupPriorityMinimum is the priority this group should have at least.',
    );
    expect(await explain('apiservices.status.conditions.reason')).toContain(
      "Unique, one-word, CamelCase reason for the condition's last transition.",
    );
    expect(await explain('endpoints.subsets.ports.port')).toContain('The port number of the endpoint.');
    expect(await explain('hpa.spec.metrics.resource.target.averageUtilization')).toContain(
      'averageUtilization is the target value of the average of the resource metric across all relevant pods',
    );
    expect(await explain('hpa.status.currentMetrics.pods.current.averageUtilization')).toContain(
      'currentAverageUtilization is the current value',
    );
    expect(await explain('hpa.spec.behavior.scaleUp.policies.periodSeconds')).toContain(
      'PeriodSeconds specifies the window of time',
    );
    expect(await explain('selfsubjectaccessreviews.spec.resourceAttributes.verb')).toContain(
      'Verb is a kubernetes resource API verb',
    );
    expect(await explain('subjectaccessreviews.spec.user')).toContain("User is the user you're testing for.");
    expect(await explain('selfsubjectrulesreviews.status.incomplete')).toContain(
      'Incomplete is true when the rules returned by this call are incomplete.',
    );
    expect(await explain('crd.spec.names.plural')).toContain(
      'plural is the plural name of the resource to serve.',
    );
    expect(await explain('crd.status.storedVersions')).toContain(
      'storedVersions lists all versions of CustomResources that were ever persisted.',
    );
    expect(await explain('services.spec.externalTrafficPolicy')).toContain(
      'externalTrafficPolicy describes how nodes distribute service traffic',
    );
    expect(await explain('tokenreviews')).toContain(
      'TokenReview attempts to authenticate a token to a known user.',
    );
    expect(await explain('tokenreviews.spec.token')).toContain('token is the opaque bearer token.');
    expect(await explain('tokenreviews.status.user.uid')).toContain(
      'uid is a unique value that identifies this user across time.',
    );
    expect(await explain('selfsubjectreviews.status.userInfo.username')).toContain(
      'username is the name that uniquely identifies this user among all active users.',
    );
    expect(
      await explain(
        'storageversions.status.commonEncodingVersion',
        '--api-version=internal.apiserver.k8s.io/v1alpha1',
      ),
    ).toContain(
      'commonEncodingVersion is set to an encoding storage version if all API server instances share',
    );
    expect(
      await explain(
        'storageversions.status.storageVersions.apiServerID',
        '--api-version=internal.apiserver.k8s.io/v1alpha1',
      ),
    ).toContain('apiServerID is the ID of the reporting API server.');
    expect(
      await explain(
        'storageversionmigrations.spec.resource',
        '--api-version=storagemigration.k8s.io/v1beta1',
      ),
    ).toContain(
      'The resource that is being migrated. The migrator sends requests to the endpoint serving the resource.',
    );
    expect(
      await explain(
        'storageversionmigrations.status.conditions.reason',
        '--api-version=storagemigration.k8s.io/v1beta1',
      ),
    ).toContain('reason contains a programmatic identifier indicating the reason');
    expect(await explain('validatingwebhookconfigurations.webhooks')).toContain(
      'Webhooks is a list of webhooks and the affected resources and operations.',
    );
    expect(await explain('validatingwebhookconfigurations.webhooks.failurePolicy')).toContain(
      'FailurePolicy defines how unrecognized errors from the admission endpoint are handled',
    );
    expect(await explain('mutatingwebhookconfigurations.webhooks.reinvocationPolicy')).toContain(
      'reinvocationPolicy indicates whether this webhook should be called multiple times',
    );
    expect(await explain('validatingwebhookconfigurations.webhooks.clientConfig.service.port')).toContain(
      'If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility.',
    );
    expect(await explain('mutatingwebhookconfigurations.webhooks.rules.scope')).toContain(
      'scope specifies the scope of this rule.',
    );
    expect(await explain('validatingwebhookconfigurations.webhooks.matchConditions.expression')).toContain(
      'Expression represents the expression which will be evaluated by CEL. Must evaluate to bool.',
    );
    expect(await explain('mutatingwebhookconfigurations.webhooks.namespaceSelector')).toContain(
      'See https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/ for more examples',
    );
    expect(await explain('validatingwebhookconfigurations.webhooks.namespaceSelector')).toContain(
      'See https://kubernetes.io/docs/concepts/overview/working-with-objects/labels for more examples',
    );
    expect(
      await explain('mutatingwebhookconfigurations.webhooks.objectSelector.matchExpressions.operator'),
    ).toContain("operator represents a key's relationship to a set of values.");
    expect(await explain('validatingadmissionpolicies.spec.validations.messageExpression')).toContain(
      'messageExpression declares a CEL expression that evaluates to the validation failure message',
    );
    expect(await explain('validatingadmissionpolicies.spec.failurePolicy')).toContain(
      'failurePolicy defines how to handle failures for the admission policy.',
    );
    expect(
      await explain('validatingadmissionpolicies.spec.matchConstraints.resourceRules.resourceNames'),
    ).toContain('ResourceNames is an optional white list of names that the rule applies to.');
    expect(await explain('validatingadmissionpolicies.spec.matchConstraints.namespaceSelector')).toContain(
      'NamespaceSelector decides whether to run the admission control policy on an object',
    );
    expect(await explain('validatingadmissionpolicies.status.observedGeneration')).toContain(
      'The generation observed by the controller.',
    );
    expect(await explain('validatingadmissionpolicybindings.spec.validationActions')).toContain(
      'validationActions declares how Validations of the referenced ValidatingAdmissionPolicy are enforced.',
    );
    expect(
      await explain('validatingadmissionpolicybindings.spec.paramRef.parameterNotFoundAction'),
    ).toContain('`parameterNotFoundAction` controls the behavior of the binding when the resource exists');
    expect(
      await explain('validatingadmissionpolicybindings.spec.matchResources.objectSelector.matchLabels'),
    ).toContain('matchLabels is a map of {key,value} pairs.');
  });

  it('answers auth can-i for the admin', async () => {
    expect((await kubectl(server, ['auth', 'can-i', 'create', 'configmaps'])).trim()).toBe('yes');
  });

  it('answers auth whoami for the admin (a SelfSubjectReview)', async () => {
    const out = await kubectl(server, ['auth', 'whoami']);
    expect(out).toMatch(/Username\s+\S+/);
    expect(out).toMatch(/Groups\s+\[.*system:masters.*system:authenticated\]/);
  });

  it('serves HPAs in v1 and v2', async () => {
    await kubectl(
      server,
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: 'autoscaling/v1',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          maxReplicas: 5,
          targetCPUUtilizationPercentage: 60,
        },
      }),
    );
    const v2 = JSON.parse(
      await kubectl(server, ['get', 'hpa.v2.autoscaling', 'web', '-n', 'default', '-o', 'json']),
    ) as { metadata: { generation?: number }; spec: { metrics: unknown[]; minReplicas: number } };
    // HPAs keep a generation (upstream's HPAGeneration), for status.observedGeneration.
    expect(v2.metadata.generation).toBe(1);
    expect(v2.spec.metrics).toEqual([
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } },
      },
    ]);
    expect(v2.spec.minReplicas).toBe(1);
    const table = await kubectl(server, ['get', 'hpa', '-n', 'default']);
    expect(table).toMatch(/^NAME\s+REFERENCE\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE/);
  });

  it('shows storage versions, identity leases and their metrics', async () => {
    const storageVersions = await kubectl(server, ['get', 'storageversions']);
    expect(storageVersions.split('\n')[0]).toMatch(/^NAME\s+COMMONENCODINGVERSION\s+STORAGEVERSIONS\s+AGE/);
    expect(storageVersions).toMatch(
      /autoscaling\.horizontalpodautoscalers\s+autoscaling\/v2\s+autoscaling\/v2/,
    );
    expect(storageVersions).toMatch(/core\.configmaps\s+v1\s+v1/);
    const leases = await kubectl(server, [
      'get',
      'leases',
      '-n',
      'kube-system',
      '-l',
      'apiserver.kubernetes.io/identity=kube-apiserver',
    ]);
    expect(leases).toMatch(/^NAME\s+HOLDER\s+AGE/);
    expect(leases).toMatch(/apiserver-[a-z2-7]{26}\s+apiserver-[a-z2-7]{26}_[0-9a-f-]{36}/);
    const metrics = await kubectl(server, ['get', '--raw', '/metrics']);
    expect(metrics).toMatch(
      /apiserver_storage_version_updates_total\{resource="horizontalpodautoscalers.autoscaling",outcome="success"\} [1-9]/,
    );
    expect(metrics).toContain('apiserver_storage_version_registration_complete 1');
    expect(metrics).toMatch(
      /kapi_health_check\{name="poststarthook\/built-in-resources-storage-version-updater",type="readyz"\} 1/,
    );
    expect(metrics).toMatch(/apiserver_request_total\{[^}]*resource="configmaps"/);
    // The storage's health check, named like upstream's for etcd.
    const readyz = await kubectl(server, ['get', '--raw', '/readyz?verbose']);
    expect(readyz).toContain(backend === 'sqlite' ? '[+]sqlite ok' : '[+]etcd ok');
    if (backend === 'sqlite') {
      expect(metrics).toMatch(/^kapi_sqlite_writes_total [1-9]\d*$/m);
      expect(metrics).toMatch(/^kapi_sqlite_write_transactions_total [1-9]\d*$/m);
    }
  });

  it('defaults an HPA as upstream: CPU at 80% without metrics, behavior filled in', async () => {
    const hpa = (apiVersion: string, name: string, spec: Record<string, unknown>) =>
      JSON.stringify({
        apiVersion,
        kind: 'HorizontalPodAutoscaler',
        metadata: { name, namespace: 'default' },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          maxReplicas: 3,
          ...spec,
        },
      });
    await kubectl(
      server,
      ['create', '-f', '-'],
      hpa('autoscaling/v2', 'defaulted-v2', { behavior: { scaleUp: { stabilizationWindowSeconds: 10 } } }),
    );
    await kubectl(server, ['create', '-f', '-'], hpa('autoscaling/v1', 'defaulted-v1', {}));
    const read = async (version: string, name: string) =>
      (
        JSON.parse(
          await kubectl(server, [
            'get',
            `horizontalpodautoscalers.${version}.autoscaling`,
            name,
            '-o',
            'json',
          ]),
        ) as { spec: Record<string, unknown> }
      ).spec;
    const cpu80 = [
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
      },
    ];
    const v2 = await read('v2', 'defaulted-v2');
    expect(v2['minReplicas']).toBe(1);
    expect(v2['metrics']).toEqual(cpu80);
    expect(v2['behavior']).toEqual({
      scaleUp: {
        stabilizationWindowSeconds: 10,
        selectPolicy: 'Max',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
    expect((await read('v1', 'defaulted-v2'))['targetCPUUtilizationPercentage']).toBe(80);
    expect((await read('v1', 'defaulted-v1'))['targetCPUUtilizationPercentage']).toBe(80);
    expect((await read('v2', 'defaulted-v1'))['metrics']).toEqual(cpu80);
    // A new HPA's status as upstream serializes it (v1's currentReplicas has no omitempty).
    const status = async (version: string) =>
      (
        JSON.parse(
          await kubectl(server, [
            'get',
            `horizontalpodautoscalers.${version}.autoscaling`,
            'defaulted-v2',
            '-o',
            'json',
          ]),
        ) as { status?: unknown }
      ).status;
    expect(await status('v2')).toEqual({ desiredReplicas: 0 });
    expect(await status('v1')).toEqual({ currentReplicas: 0, desiredReplicas: 0 });
  });

  it('leaves no empty labels, annotations or data behind (omitempty)', async () => {
    await kubectl(server, ['create', 'configmap', 'emptied', '--from-literal=x=1']);
    await kubectl(server, ['label', 'configmap', 'emptied', 'tier=a']);
    await kubectl(server, ['annotate', 'configmap', 'emptied', 'note=b']);
    await kubectl(server, ['label', 'configmap', 'emptied', 'tier-']);
    await kubectl(server, ['annotate', 'configmap', 'emptied', 'note-']);
    await kubectl(server, ['patch', 'configmap', 'emptied', '--type=merge', '-p', '{"data":{"x":null}}']);
    const emptied = JSON.parse(await kubectl(server, ['get', 'configmap', 'emptied', '-o', 'json'])) as {
      metadata: Record<string, unknown>;
      data?: unknown;
    };
    expect(emptied.metadata['labels']).toBeUndefined();
    expect(emptied.metadata['annotations']).toBeUndefined();
    expect(emptied.data).toBeUndefined();
    const created = JSON.parse(
      await kubectl(
        server,
        ['create', '-o', 'json', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'born-empty', namespace: 'default', labels: {}, annotations: {}, finalizers: [] },
          data: {},
        }),
      ),
    ) as { metadata: Record<string, unknown>; data?: unknown };
    expect(
      Object.keys(created.metadata).filter((key) => ['labels', 'annotations', 'finalizers'].includes(key)),
    ).toEqual([]);
    expect(created.data).toBeUndefined();
  });

  it('selects events by their object (describe shows them) and secrets by type', async () => {
    await kubectl(server, ['create', 'configmap', 'described', '--from-literal=a=1']);
    // describe asks for the events of the object's uid, kind, name and namespace.
    const uid = (
      await kubectl(server, ['get', 'configmap', 'described', '-o', 'jsonpath={.metadata.uid}'])
    ).trim();
    const event = (name: string, kind: string, object: string, reason: string, type: string) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: 'default' },
      involvedObject: {
        apiVersion: 'v1',
        kind,
        name: object,
        namespace: 'default',
        ...(object === 'described' ? { uid } : {}),
      },
      reason,
      type,
      message: `${reason} happened`,
      source: { component: 'e2e' },
      firstTimestamp: new Date().toISOString(),
      lastTimestamp: new Date().toISOString(),
      count: 1,
    });
    await kubectl(
      server,
      ['create', '-f', '-'],
      JSON.stringify(event('described.1', 'ConfigMap', 'described', 'Touched', 'Warning')),
    );
    await kubectl(
      server,
      ['create', '-f', '-'],
      JSON.stringify(event('other.1', 'ConfigMap', 'other', 'Elsewhere', 'Normal')),
    );
    const selected = await kubectl(server, [
      'get',
      'events',
      '--field-selector',
      'involvedObject.name=described,type=Warning',
      '-o',
      'name',
    ]);
    expect(selected.trim()).toBe('event/described.1');
    expect(await kubectl(server, ['events', '--for', 'configmap/described'])).toContain('Touched happened');
    // The table's OBJECT is kind/name, as upstream's event printer.
    expect(
      await kubectl(server, ['get', 'events', '--field-selector', 'involvedObject.name=described']),
    ).toMatch(/\sconfigmap\/described\s/);
    const described = await kubectl(server, ['describe', 'configmap', 'described']);
    expect(described).toMatch(/Events:[\s\S]*Touched/);
    expect(described).not.toContain('Elsewhere');

    await kubectl(server, ['create', 'secret', 'generic', 'opaque-one', '--from-literal=k=v']);
    const tls = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'tls-one', namespace: 'default' },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': 'eA==', 'tls.key': 'eA==' },
    };
    await kubectl(server, ['create', '-f', '-'], JSON.stringify(tls));
    expect(
      (
        await kubectl(server, ['get', 'secrets', '--field-selector', 'type=kubernetes.io/tls', '-o', 'name'])
      ).trim(),
    ).toBe('secret/tls-one');
  });

  it('terminates a namespace: refuses new content, waits for finalizers, then removes it', async () => {
    await kubectl(server, ['create', 'namespace', 'doomed']);
    await kubectl(
      server,
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'held', namespace: 'doomed', finalizers: ['example.com/hold'] },
      }),
    );
    await kubectl(server, ['delete', 'namespace', 'doomed', '--wait=false']);
    const phase = async () =>
      (await kubectl(server, ['get', 'namespace', 'doomed', '-o', 'jsonpath={.status.phase}'])).trim();
    const deadline = Date.now() + 20_000;
    while ((await phase()) !== 'Terminating' && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(await phase()).toBe('Terminating');
    await expect(kubectl(server, ['create', 'configmap', 'late', '-n', 'doomed'])).rejects.toThrow(
      /unable to create new content in namespace doomed because it is being terminated/,
    );
    // The finalizer holds both the object and its namespace; removing it lets both go.
    await kubectl(server, [
      'patch',
      'configmap',
      'held',
      '-n',
      'doomed',
      '--type=merge',
      '-p',
      '{"metadata":{"finalizers":null}}',
    ]);
    let gone = false;
    while (!gone && Date.now() < deadline + 10_000) {
      gone = await kubectl(server, ['get', 'namespace', 'doomed']).then(
        () => false,
        (error: Error) => /NotFound|not found/.test(error.message),
      );
      if (!gone) await new Promise((r) => setTimeout(r, 200));
    }
    expect(gone).toBe(true);
    await expect(kubectl(server, ['delete', 'namespace', 'default'])).rejects.toThrow(
      /this namespace may not be deleted/,
    );
  });
});
