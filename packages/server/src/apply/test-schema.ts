import type { SchemaNode } from './schema-type.js';

const string = { type: 'string' };
const stringMap = { type: 'object', additionalProperties: string };

/** A Deployment-like schema for the apply unit tests (containers keyed by name, ports by containerPort+protocol). */
export const deploymentSchema: SchemaNode = {
  type: 'object',
  properties: {
    apiVersion: string,
    kind: string,
    metadata: {
      type: 'object',
      properties: {
        name: string,
        namespace: string,
        uid: string,
        resourceVersion: string,
        labels: stringMap,
        annotations: stringMap,
        finalizers: { type: 'array', items: string, 'x-kubernetes-list-type': 'set' },
        managedFields: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    },
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        selector: {
          type: 'object',
          'x-kubernetes-map-type': 'atomic',
          properties: { matchLabels: stringMap },
        },
        template: {
          type: 'object',
          properties: {
            metadata: { type: 'object', properties: { labels: stringMap } },
            spec: {
              type: 'object',
              properties: {
                containers: {
                  type: 'array',
                  'x-kubernetes-patch-strategy': 'merge',
                  'x-kubernetes-patch-merge-key': 'name',
                  items: {
                    type: 'object',
                    properties: {
                      name: string,
                      image: string,
                      args: { type: 'array', items: string },
                      ports: {
                        type: 'array',
                        'x-kubernetes-list-type': 'map',
                        'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
                        items: {
                          type: 'object',
                          properties: {
                            containerPort: { type: 'integer' },
                            protocol: { type: 'string', default: 'TCP' },
                            name: string,
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'integer' } } },
  },
};

/** A Deployment-like object: one nginx container. */
export function deployment(overrides: { replicas?: number; image?: string; labels?: Record<string, string> } = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: overrides.labels ?? { app: 'web' } },
    spec: {
      replicas: overrides.replicas ?? 1,
      template: { spec: { containers: [{ name: 'nginx', image: overrides.image ?? 'nginx:1' }] } },
    },
  };
}
