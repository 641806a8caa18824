import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@kapi/apimachinery';
import type { APIService } from './apiservice-kind.js';
import { resolveEndpoint, type ServiceLookup } from './endpoint-resolver.js';

const apiService: APIService = {
  metadata: { name: 'v1alpha1.wardle.example.com' },
  spec: { group: 'wardle.example.com', version: 'v1alpha1', service: { namespace: 'wardle', name: 'api' }, groupPriorityMinimum: 1000, versionPriority: 15 },
};

function lookup(service: KubeObject | undefined, slices: KubeObject[]): ServiceLookup {
  return { service: () => service, endpointSlices: () => slices };
}

const service = { metadata: { name: 'api', namespace: 'wardle' }, spec: { ports: [{ name: 'https', port: 443 }] } };
const slice = (ports: Array<{ name?: string; port: number }>, endpoints: unknown[]): KubeObject => ({
  metadata: { name: 'api-1', namespace: 'wardle' },
  ports,
  endpoints,
});

describe('resolveEndpoint', () => {
  it('picks a ready address of the slice port named like the service port, with the service DNS name', () => {
    const result = resolveEndpoint(
      apiService,
      lookup(service, [
        slice([{ name: 'https', port: 8443 }], [
          { addresses: ['10.0.0.1'], conditions: { ready: false } },
          { addresses: ['10.0.0.2'], conditions: { ready: true } },
        ]),
      ]),
    );
    expect(result).toEqual({ host: '10.0.0.2', port: 8443, serverName: 'api.wardle.svc' });
  });

  it('names why the service cannot be reached, with upstream reasons and messages', () => {
    expect(resolveEndpoint(apiService, lookup(undefined, []))).toEqual({
      reason: 'ServiceNotFound',
      message: 'service/api in "wardle" is not present',
    });
    const otherPort = { ...apiService, spec: { ...apiService.spec, service: { namespace: 'wardle', name: 'api', port: 8080 } } };
    expect(resolveEndpoint(otherPort, lookup(service, []))).toMatchObject({ reason: 'ServicePortError' });
    expect(resolveEndpoint(apiService, lookup(service, []))).toMatchObject({ reason: 'EndpointsNotFound' });
    expect(resolveEndpoint(apiService, lookup(service, [slice([{ name: 'https', port: 8443 }], [{ addresses: ['10.0.0.1'], conditions: { ready: false } }])]))).toEqual({
      reason: 'MissingEndpoints',
      message: 'endpointslices for service/api in "wardle" have no addresses with port name "https"',
    });
  });
});
