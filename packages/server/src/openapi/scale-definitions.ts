import { metaNames, type JSONSchema } from './meta-definitions.js';
import { metadataProperty, type OpenAPIFlavour } from './openapi-schemas.js';

/** Definition name of autoscaling/v1 Scale, the body of every `<resource>/scale` subresource. */
export const scaleDefinitionName = 'io.k8s.api.autoscaling.v1.Scale';
const specName = 'io.k8s.api.autoscaling.v1.ScaleSpec';
const statusName = 'io.k8s.api.autoscaling.v1.ScaleStatus';

/** The group-version-kind upstream tags scale operations and the Scale definition with. */
export const scaleGroupVersionKind = { group: 'autoscaling', kind: 'Scale', version: 'v1' };

const apiConventions = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';

/** autoscaling/v1 Scale, ScaleSpec and ScaleStatus as upstream publishes them beside a resource with a scale subresource. */
export function scaleDefinitions(flavour: OpenAPIFlavour): Record<string, JSONSchema> {
  return {
    [scaleDefinitionName]: {
      description: 'Scale represents a scaling request for a resource.',
      type: 'object',
      properties: {
        apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources' },
        kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds' },
        metadata: metadataProperty(flavour, metaNames.objectMeta, `Standard object metadata; More info: ${apiConventions}#metadata.`),
        spec: metadataProperty(flavour, specName, `spec defines the behavior of the scale. More info: ${apiConventions}#spec-and-status.`),
        status: metadataProperty(flavour, statusName, `status is the current status of the scale. More info: ${apiConventions}#spec-and-status. Read-only.`),
      },
      'x-kubernetes-group-version-kind': [scaleGroupVersionKind],
    },
    [specName]: {
      description: 'ScaleSpec describes the attributes of a scale subresource.',
      type: 'object',
      properties: { replicas: { type: 'integer', format: 'int32', description: 'replicas is the desired number of instances for the scaled object.' } },
    },
    [statusName]: {
      description: 'ScaleStatus represents the current status of a scale subresource.',
      type: 'object',
      required: ['replicas'],
      properties: {
        replicas: { type: 'integer', format: 'int32', default: 0, description: 'replicas is the actual number of observed instances of the scaled object.' },
        selector: {
          type: 'string',
          description:
            'selector is the label query over pods that should match the replicas count. This is same as the label selector but in the string format to avoid introspection by clients. The string will be in the same format as the query-param syntax. More info about label selectors: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/',
        },
      },
    },
  };
}
