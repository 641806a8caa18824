import { describe, expect, it } from 'vitest';
import type { APIService } from './apiservice-kind.js';
import { validateAPIService, validateAPIServiceStatus } from './apiservice-validation.js';
import { builtInGroupPriority, localAPIServices } from './local-apiservices.js';

const remote = (
  spec: Partial<APIService['spec']> = {},
  name = 'v1alpha1.wardle.example.com',
): APIService => ({
  metadata: { name },
  spec: {
    group: 'wardle.example.com',
    version: 'v1alpha1',
    service: { namespace: 'wardle', name: 'api', port: 443 },
    groupPriorityMinimum: 1000,
    versionPriority: 15,
    ...spec,
  },
});

describe('validateAPIService', () => {
  it('accepts the sample-apiserver APIService and the core v1. one', () => {
    expect(validateAPIService(remote({ insecureSkipTLSVerify: true }))).toEqual([]);
    expect(
      validateAPIService({
        metadata: { name: 'v1.' },
        spec: { group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 },
      }),
    ).toEqual([]);
  });

  it('refuses a version that is not a DNS-1035 label and an invalid service port', () => {
    const errors = validateAPIService(
      remote(
        { version: '1alpha', service: { namespace: 'wardle', name: 'api', port: 70000 } },
        '1alpha.wardle.example.com',
      ),
    );
    expect(errors.map((error) => [error.field, error.detail])).toEqual([
      [
        'spec.version',
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
      ['spec.service.port', 'port is not valid: must be between 1 and 65535, inclusive'],
    ]);
  });

  it('requires the service namespace and name of a remote APIService', () => {
    const errors = validateAPIService(remote({ service: { port: 443 } }));
    expect(errors).toEqual([
      { field: 'spec.service.namespace', type: 'FieldValueRequired', detail: '' },
      { field: 'spec.service.name', type: 'FieldValueRequired', detail: '' },
    ]);
  });

  it('counts caBundle bytes for a local APIService', () => {
    const local = {
      metadata: { name: 'v1.local.example.com' },
      spec: {
        group: 'local.example.com',
        version: 'v1',
        caBundle: Buffer.from('abcd').toString('base64'),
        groupPriorityMinimum: 1,
        versionPriority: 1,
      },
    };
    expect(validateAPIService(local)).toEqual([
      {
        field: 'spec.caBundle',
        type: 'FieldValueInvalid',
        value: '4 bytes',
        detail: 'local APIServices may not have a caBundle',
      },
    ]);
  });

  it('refuses condition statuses other than True, False and Unknown', () => {
    const withStatus: APIService = {
      ...remote(),
      status: { conditions: [{ type: 'Available', status: 'Maybe' }] },
    };
    expect(validateAPIServiceStatus(withStatus)).toEqual([
      {
        field: 'status.conditions[0].status',
        type: 'FieldValueNotSupported',
        value: 'Maybe',
        detail: 'supported values: "True", "False", "Unknown"',
      },
    ]);
  });
});

describe('localAPIServices', () => {
  it('uses upstream priorities, labels them automanaged, and skips group/versions upstream does not know', () => {
    const services = localAPIServices([
      { group: '', version: 'v1' },
      { group: 'autoscaling', version: 'v2' },
      { group: 'autoscaling', version: 'v2' },
      { group: 'example.com', version: 'v1' },
    ]);
    expect(
      services.map((service) => [
        service.metadata.name,
        service.spec.groupPriorityMinimum,
        service.spec.versionPriority,
      ]),
    ).toEqual([
      ['v1.', 18000, 1],
      ['v2.autoscaling', 17500, 30],
    ]);
    expect(services[0]?.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
  });

  it('lists events.k8s.io and the aggregator\'s own group as upstream does, and gives group priorities for discovery', () => {
    const names = localAPIServices([
      { group: 'events.k8s.io', version: 'v1' },
      { group: 'apiregistration.k8s.io', version: 'v1' },
    ]).map((service) => `${service.metadata.name} ${service.spec.groupPriorityMinimum}/${service.spec.versionPriority}`);
    expect(names).toEqual(['v1.events.k8s.io 17750/15', 'v1.apiregistration.k8s.io 18000/15']);
    expect(builtInGroupPriority('autoscaling')).toBe(17500);
    expect(builtInGroupPriority('example.com')).toBeUndefined();
  });
});
