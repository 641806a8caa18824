import type { KubeObject } from '@kapi/apimachinery';
import type { ServiceLookup } from './endpoint-resolver.js';
import { describe, expect, it } from 'vitest';
import { webhookServiceResolver } from './webhook-service-resolver.js';

/** Services and EndpointSlices as the aggregator's caches hold them. */
function lookup(services: KubeObject[], slices: KubeObject[]): ServiceLookup {
  return {
    service: (namespace, name) => services.find((s) => s.metadata.namespace === namespace && s.metadata.name === name),
    endpointSlices: (namespace, name) =>
      slices.filter((s) => s.metadata.namespace === namespace && s.metadata.labels?.['kubernetes.io/service-name'] === name),
  };
}

const service: KubeObject = {
  metadata: { namespace: 'hooks', name: 'converter' },
  spec: { ports: [{ name: 'https', port: 443, targetPort: 9443 }] },
};
const slice = (addresses: string[]): KubeObject => ({
  metadata: { namespace: 'hooks', name: 'converter-1', labels: { 'kubernetes.io/service-name': 'converter' } },
  endpoints: [{ addresses, conditions: { ready: true } }],
  ports: [{ name: 'https', port: 9443 }],
});

describe('webhookServiceResolver', () => {
  const reference = { namespace: 'hooks', name: 'converter', port: 443 };

  it('resolves a Service port to an address and target port of its EndpointSlices', () => {
    expect(webhookServiceResolver(lookup([service], [slice(['10.0.0.7'])]))(reference)).toEqual({ host: '10.0.0.7', port: 9443 });
  });

  it('fails with upstream ResolveEndpoint texts', () => {
    expect(() => webhookServiceResolver(lookup([], []))(reference)).toThrow('service "converter" not found');
    expect(() => webhookServiceResolver(lookup([service], []))({ ...reference, port: 8443 })).toThrow(
      'no service port 8443 found for service "converter"',
    );
    expect(() => webhookServiceResolver(lookup([service], []))(reference)).toThrow('no endpoints available for service "converter"');
    expect(() => webhookServiceResolver(lookup([service], [slice([])]))(reference)).toThrow('no endpoints available for service "converter"');
  });
});
