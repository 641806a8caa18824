import { isDNS1035Label, isDNS1123Subdomain, type FieldError } from '@kapi/apimachinery';
import { storageVersionOf, type CustomResourceDefinition, type CustomResourceDefinitionNames } from './types.js';

const invalid = (field: string, value: unknown, detail: string): FieldError => ({ field, type: 'FieldValueInvalid', value, detail });
const required = (field: string, detail = ''): FieldError => ({ field, type: 'FieldValueRequired', value: '', detail });
const unsupported = (field: string, value: unknown, supported: string[]): FieldError => ({
  field,
  type: 'FieldValueNotSupported',
  value,
  detail: `supported values: ${supported.map((v) => `"${v}"`).join(', ')}`,
});

const printerColumnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const printerColumnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'name', 'password'];
/** `.a.b`, `.a[0]`, `.a['x.y']`: the simple JSONPath of selectable fields. */
const SIMPLE_JSON_PATH = /^(\.[A-Za-z0-9_-]+|\[\d+\]|\['[^']+'\]|\["[^"]+"\])+$/;

function validateNames(names: CustomResourceDefinitionNames | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!names) return [required(path)];
  const label = (field: string, value: string | undefined, lower = false) => {
    if (!value) return errors.push(required(`${path}.${field}`));
    for (const message of isDNS1035Label(lower ? value.toLowerCase() : value)) errors.push(invalid(`${path}.${field}`, value, message));
    return 0;
  };
  label('plural', names.plural);
  if (names.singular) label('singular', names.singular);
  else errors.push(required(`${path}.singular`));
  label('kind', names.kind, true);
  if (names.listKind) label('listKind', names.listKind, true);
  else errors.push(required(`${path}.listKind`));
  if (names.kind && names.kind === names.listKind) errors.push(invalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  (names.shortNames ?? []).forEach((name, i) => {
    for (const message of isDNS1035Label(name)) errors.push(invalid(`${path}.shortNames[${i}]`, name, message));
  });
  (names.categories ?? []).forEach((name, i) => {
    for (const message of isDNS1035Label(name)) errors.push(invalid(`${path}.categories[${i}]`, name, message));
  });
  return errors;
}

/** The schema node a dotted path (`.spec.color`) leads to through `properties`, or undefined. */
function schemaAt(schema: Record<string, unknown> | undefined, segments: string[]): Record<string, unknown> | undefined {
  let node = schema;
  for (const segment of segments) {
    const properties = node?.['properties'] as Record<string, Record<string, unknown>> | undefined;
    node = properties && Object.hasOwn(properties, segment) ? properties[segment] : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/**
 * Upstream's `validateSelectableFields` for one path: it must lead to a declared field outside metadata
 * whose type is a string, boolean or integer.
 */
function selectableFieldErrors(field: string, jsonPath: string, schema: Record<string, unknown> | undefined): FieldError[] {
  if (!/^(\.[A-Za-z0-9_-]+)+$/.test(jsonPath)) return [invalid(field, jsonPath, 'is an invalid path: array notation is not allowed')];
  const segments = jsonPath.slice(1).split('.');
  if (segments[0] === 'metadata') return [invalid(field, jsonPath, 'must not point to fields in metadata')];
  const found = schemaAt(schema, segments);
  if (found === undefined) return [invalid(field, jsonPath, 'is an invalid path: does not refer to a valid field')];
  if (!['string', 'boolean', 'integer'].includes(found['type'] as string))
    return [invalid(field, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.')];
  return [];
}

function validateVersions(crd: CustomResourceDefinition): FieldError[] {
  const errors: FieldError[] = [];
  const versions = crd.spec.versions ?? [];
  if (versions.length === 0) return [required('spec.versions', 'must have exactly one version marked as storage version')];
  const seen = new Set<string>();
  versions.forEach((version, i) => {
    const path = `spec.versions[${i}]`;
    if (!version.name) errors.push(required(`${path}.name`));
    else for (const message of isDNS1035Label(version.name)) errors.push(invalid(`${path}.name`, version.name, message));
    if (seen.has(version.name)) errors.push(invalid('spec.versions', versions.map((v) => v.name), 'must contain unique version names'));
    seen.add(version.name);
    if (!version.schema?.openAPIV3Schema) errors.push(required(`${path}.schema.openAPIV3Schema`));
    (version.additionalPrinterColumns ?? []).forEach((column, j) => {
      const columnPath = `${path}.additionalPrinterColumns[${j}]`;
      if (!column.name) errors.push(required(`${columnPath}.name`));
      if (!column.type) errors.push(required(`${columnPath}.type`, `must be one of ${printerColumnTypes.join(', ')}`));
      else if (!printerColumnTypes.includes(column.type)) errors.push(unsupported(`${columnPath}.type`, column.type, printerColumnTypes));
      if (column.format && !printerColumnFormats.includes(column.format)) errors.push(unsupported(`${columnPath}.format`, column.format, printerColumnFormats));
      if (!column.jsonPath) errors.push(required(`${columnPath}.jsonPath`));
      else if (!column.jsonPath.startsWith('.')) errors.push(invalid(`${columnPath}.jsonPath`, column.jsonPath, 'must be a simple json path starting with .'));
    });
    const selectable = version.selectableFields ?? [];
    if (selectable.length > 8) errors.push({ field: `${path}.selectableFields`, type: 'FieldValueTooMany', value: selectable.length, detail: 'must have at most 8 items' });
    const paths = new Set<string>();
    selectable.forEach((field, j) => {
      const fieldPath = `${path}.selectableFields[${j}].jsonPath`;
      if (!field.jsonPath) errors.push(required(fieldPath));
      else if (!SIMPLE_JSON_PATH.test(field.jsonPath)) errors.push(invalid(fieldPath, field.jsonPath, 'must be a simple json path'));
      else {
        errors.push(...selectableFieldErrors(fieldPath, field.jsonPath, version.schema?.openAPIV3Schema));
        if (paths.has(field.jsonPath)) errors.push({ field: fieldPath, type: 'FieldValueDuplicate', value: field.jsonPath, detail: '' });
      }
      paths.add(field.jsonPath);
    });
  });
  if (versions.filter((version) => version.storage).length !== 1) {
    errors.push(invalid('spec.versions', versions, 'must have exactly one version marked as storage version'));
  }
  return errors;
}

function validateConversion(crd: CustomResourceDefinition): FieldError[] {
  const conversion = crd.spec.conversion;
  if (!conversion) return [];
  const strategies = ['None', 'Webhook'];
  if (!strategies.includes(conversion.strategy)) return [unsupported('spec.conversion.strategy', conversion.strategy, strategies)];
  const errors: FieldError[] = [];
  if (conversion.strategy === 'None') {
    if (conversion.webhook?.clientConfig) errors.push({ field: 'spec.conversion.webhookClientConfig', type: 'FieldValueForbidden', value: '', detail: 'should not be set when strategy is not set to Webhook' });
    return errors;
  }
  const clientConfig = conversion.webhook?.clientConfig;
  if (!clientConfig) return [required('spec.conversion.webhookClientConfig', 'required when strategy is set to Webhook')];
  if (Boolean(clientConfig.url) === Boolean(clientConfig.service)) errors.push(required('spec.conversion.webhookClientConfig', 'exactly one of url or service is required'));
  const reviews = conversion.webhook?.conversionReviewVersions ?? [];
  if (!reviews.some((v) => v === 'v1' || v === 'v1beta1')) {
    errors.push(invalid('spec.conversion.conversionReviewVersions', reviews, 'must include at least one of v1, v1beta1'));
  }
  return errors;
}

const PROTECTED_GROUP = /(^|\.)(k8s\.io|kubernetes\.io)$/;
const APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';

function validateApproval(crd: CustomResourceDefinition): FieldError[] {
  if (!PROTECTED_GROUP.test(crd.spec.group ?? '')) return [];
  const value = crd.metadata.annotations?.[APPROVAL_ANNOTATION];
  if (value === undefined) {
    return [required(`metadata.annotations[${APPROVAL_ANNOTATION}]`, `protected groups must have approval annotation "${APPROVAL_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111`)];
  }
  return [];
}

/** The storedVersions rules (create and both updates). */
export function validateStoredVersions(crd: CustomResourceDefinition): FieldError[] {
  const stored = crd.status?.storedVersions ?? [];
  if (stored.length === 0) return [invalid('status.storedVersions', stored, 'must have at least one stored version')];
  const errors: FieldError[] = [];
  const specVersions = new Set(crd.spec.versions.map((version) => version.name));
  stored.forEach((version, i) => {
    if (!specVersions.has(version)) {
      errors.push(invalid(`status.storedVersions[${i}]`, version, `missing from spec.versions; ${version} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${version} and removes ${version} from status.storedVersions`));
    }
  });
  const storage = storageVersionOf(crd);
  if (storage && !stored.includes(storage)) errors.push(invalid('status.storedVersions', stored, `must have the storage version ${storage}`));
  return errors;
}

/** apiextensions validation.ValidateCustomResourceDefinition (the spec and name parts). */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition): FieldError[] {
  const errors: FieldError[] = [];
  const spec = crd.spec;
  if (!spec) return [required('spec')];
  const expectedName = `${spec.names?.plural ?? ''}.${spec.group ?? ''}`;
  if (crd.metadata.name !== expectedName) errors.push(invalid('metadata.name', crd.metadata.name, 'must be spec.names.plural+"."+spec.group'));
  if (!spec.group) errors.push(required('spec.group'));
  else {
    for (const message of isDNS1123Subdomain(spec.group)) errors.push(invalid('spec.group', spec.group, message));
    if (spec.group.split('.').length < 2) errors.push(invalid('spec.group', spec.group, 'should be a domain with at least one dot'));
  }
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') errors.push(unsupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  errors.push(...validateNames(spec.names, 'spec.names'), ...validateVersions(crd), ...validateConversion(crd), ...validateApproval(crd));
  if (spec.preserveUnknownFields === true) {
    errors.push(invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }
  return errors;
}

/** Immutable fields on update: group and plural always; scope and kind once Established. */
export function validateCustomResourceDefinitionUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition, established: boolean): FieldError[] {
  const errors = validateCustomResourceDefinition(crd);
  const immutable = (field: string, next: unknown, previous: unknown) => {
    if (next !== previous) errors.push(invalid(field, next, 'field is immutable'));
  };
  immutable('spec.group', crd.spec.group, old.spec.group);
  immutable('spec.names.plural', crd.spec.names?.plural, old.spec.names?.plural);
  if (established) {
    immutable('spec.scope', crd.spec.scope, old.spec.scope);
    immutable('spec.names.kind', crd.spec.names?.kind, old.spec.names?.kind);
  }
  return errors;
}

