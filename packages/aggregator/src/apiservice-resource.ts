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

/** The Service column: `Local`, or the service as `<namespace>/<name>`. */
function serviceCell(apiService: APIService): string {
  const service = apiService.spec.service;
  return service ? `${service.namespace ?? ''}/${service.name ?? ''}` : 'Local';
}

/** The Available column: `True`, `False (<reason>)` (the bare status without a reason), or `Unknown`. */
function availableCell(apiService: APIService): string {
  const available = apiService.status?.conditions?.find((condition) => condition.type === 'Available');
  if (!available) return 'Unknown';
  return available.status === 'True' || !available.reason
    ? available.status
    : `${available.status} (${available.reason})`;
}

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
    // Upstream's strategy for this kind does not keep metadata.generation.
    tracksGeneration: false,
    returnDeletedObject: false,
    nameValidator: nameIsPathSegment,
    printerColumns: [
      {
        name: 'Service',
        type: 'string',
        jsonPath: '.spec.service',
        cell: (object) => serviceCell(asAPIService(object)),
      },
      {
        name: 'Available',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Available")].status',
        cell: (object) => availableCell(asAPIService(object)),
      },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    strategy: {
      prepareForCreate(object) {
        const apiService = asAPIService(object);
        apiService.status = {};
        if (!apiService.spec?.service)
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
