import type { KubeObject } from '@kapi/apimachinery';
import type { ResourceDefinition, ResourceStrategy } from '@kapi/server';
import { wardleGroup, wardleVersions, type WardleVersion } from './wardle-scheme.js';
import { validateFlunder } from './wardle-validation.js';

/** The reference a Flunder holds, whichever field it is in (hub shape). */
function flunderReference(object: KubeObject): string | null {
  const spec = (object['spec'] ?? {}) as Record<string, unknown>;
  const reference = spec['flunderReference'] ?? spec['fischerReference'] ?? spec['reference'];
  return typeof reference === 'string' && reference !== '' ? reference : null;
}

/** The wardle resources: namespaced `flunders` and cluster-scoped `fischers`, served at both versions. */
export function wardleResources(options: {
  storageVersion: WardleVersion;
  admitFlunder: NonNullable<ResourceStrategy['admit']>;
}): ResourceDefinition[] {
  const common = {
    group: wardleGroup,
    versions: [...wardleVersions],
    storageVersion: options.storageVersion,
  };
  return [
    {
      ...common,
      resource: 'flunders',
      kind: 'Flunder',
      namespaced: true,
      storagePrefix: `/${wardleGroup}/flunders`,
      printerColumns: [
        { name: 'Reference-Type', type: 'string', jsonPath: '.spec.referenceType' },
        { name: 'Reference', type: 'string', jsonPath: '.spec.reference', cell: flunderReference },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
      strategy: {
        validate: (object) => validateFlunder(object),
        admit: options.admitFlunder,
      },
    },
    {
      ...common,
      resource: 'fischers',
      kind: 'Fischer',
      namespaced: false,
      storagePrefix: `/${wardleGroup}/fischers`,
      printerColumns: [
        { name: 'Disallowed', type: 'integer', jsonPath: '.disallowedFlunders' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    },
  ];
}
