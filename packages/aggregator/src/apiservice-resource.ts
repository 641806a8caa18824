import { setCondition, nameIsPathSegment, type ConditionInput, type KubeObject } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';
import { apiregistrationGroup, type APIService } from './apiservice-kind.js';
import { validateAPIService, validateAPIServiceStatus } from './apiservice-validation.js';

/** Reason and message of the Available condition of a local APIService. */
export const localAvailableCondition: ConditionInput = {
  type: 'Available',
  status: 'True',
  reason: 'Local',
  message: 'Local APIServices are always available',
};

/**
 * The `apiservices` resource (cluster-scoped, `/status`): create clears the status and marks a local
 * APIService (no `spec.service`) Available; writes are validated as upstream.
 */
export function apiServiceResource(options: { now?: () => Date } = {}): ResourceDefinition {
  const now = options.now ?? (() => new Date());
  const asAPIService = (object: KubeObject) => object as unknown as APIService;
  return {
    group: apiregistrationGroup,
    resource: 'apiservices',
    kind: 'APIService',
    namespaced: false,
    versions: ['v1'],
    subresources: { status: true },
    returnDeletedObject: false,
    nameValidator: nameIsPathSegment,
    printerColumns: [
      { name: 'Service', type: 'string', jsonPath: '.spec.service.name' },
      { name: 'Available', type: 'string', jsonPath: '.status.conditions[?(@.type=="Available")].status' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    strategy: {
      prepareForCreate(object) {
        const apiService = asAPIService(object);
        apiService.status = {};
        if (!apiService.spec.service)
          apiService.status.conditions = setCondition([], localAvailableCondition, now());
      },
      validate: (object) => validateAPIService(asAPIService(object)),
      validateUpdate: (object) => [
        ...validateAPIService(asAPIService(object)),
        ...validateAPIServiceStatus(asAPIService(object)),
      ],
    },
  };
}
