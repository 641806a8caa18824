import type { Condition, KubeObject } from '@kapi/apimachinery';

/** The group of the CustomResourceDefinition API. */
export const APIEXTENSIONS_GROUP = 'apiextensions.k8s.io';

/** The finalizer that deletes every custom resource of a CRD before the CRD goes. */
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/** spec.names / status.acceptedNames. */
export interface CustomResourceDefinitionNames {
  plural: string;
  singular?: string;
  shortNames?: string[];
  kind: string;
  listKind?: string;
  categories?: string[];
}

/** One additionalPrinterColumns entry. */
export interface CustomResourceColumnDefinition {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** spec.versions[].subresources.scale. */
export interface CustomResourceSubresourceScale {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** One spec.versions entry. */
export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  subresources?: { status?: Record<string, never>; scale?: CustomResourceSubresourceScale };
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: Array<{ jsonPath: string }>;
}

/** spec.conversion. */
export interface CustomResourceConversion {
  strategy: 'None' | 'Webhook' | string;
  webhook?: {
    clientConfig?: {
      url?: string;
      service?: { namespace: string; name: string; path?: string; port?: number };
      caBundle?: string;
    };
    conversionReviewVersions?: string[];
  };
}

/** CustomResourceDefinition spec. */
export interface CustomResourceDefinitionSpec {
  group: string;
  names: CustomResourceDefinitionNames;
  scope: 'Namespaced' | 'Cluster' | string;
  versions: CustomResourceDefinitionVersion[];
  conversion?: CustomResourceConversion;
  preserveUnknownFields?: boolean;
}

/** CustomResourceDefinition status. */
export interface CustomResourceDefinitionStatus {
  conditions?: Condition[] | null;
  acceptedNames: CustomResourceDefinitionNames;
  storedVersions: string[] | null;
}

/** apiextensions.k8s.io/v1 CustomResourceDefinition. */
export interface CustomResourceDefinition extends KubeObject {
  spec: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
}

/** The condition types a CRD carries. */
export type CustomResourceDefinitionConditionType = 'NamesAccepted' | 'Established' | 'NonStructuralSchema' | 'Terminating';

/** True when the CRD's condition of `type` has status True. */
export function isConditionTrue(crd: CustomResourceDefinition, type: CustomResourceDefinitionConditionType): boolean {
  return (crd.status?.conditions ?? []).some((condition) => condition.type === type && condition.status === 'True');
}

/** The version written to storage (the one with `storage: true`). */
export function storageVersionOf(crd: CustomResourceDefinition): string | undefined {
  return (crd.spec.versions ?? []).find((version) => version.storage)?.name;
}
