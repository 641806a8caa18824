import type { IncomingMessage } from 'node:http';
import { StatusError, type KubeObject } from '@kapi/apimachinery';
import type { PrinterColumn, ResourceDefinition } from '../resource-definition.js';
import { cachedCells, renderCells } from './table-cells.js';

/** What a response is rendered as, from the Accept header. */
export type ResponseForm =
  | { as: 'object'; yaml?: boolean }
  | { as: 'Table'; version: string }
  | { as: 'PartialObjectMetadata'; version: string; list: boolean };

interface MediaRange {
  type: string;
  parameters: Record<string, string>;
}

function parseAccept(header: string): MediaRange[] {
  return header
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [type = '', ...rest] = part.split(';');
      const parameters: Record<string, string> = {};
      for (const parameter of rest) {
        const [key, value] = parameter.split('=');
        if (key && value !== undefined) parameters[key.trim()] = value.trim();
      }
      return { type: type.trim().toLowerCase(), parameters };
    });
}

const metaVersions = ['v1', 'v1beta1'];

/**
 * Negotiates the response form: `application/json;as=Table;v=v1;g=meta.k8s.io` (also v1beta1) gives a
 * Table, `as=PartialObjectMetadata[List]` metadata only; otherwise the object. An Accept that offers only
 * forms the server cannot produce is 406.
 */
export function negotiateResponseForm(request: IncomingMessage): ResponseForm {
  const header = request.headers.accept;
  if (!header) return { as: 'object' };
  const ranges = parseAccept(header);
  for (const range of ranges) {
    const as = range.parameters['as'];
    if (range.type === 'application/yaml' && as === undefined) return { as: 'object', yaml: true };
    const jsonLike =
      range.type === 'application/json' || range.type === '*/*' || range.type === 'application/*';
    if (!jsonLike) continue;
    if (as === undefined) return { as: 'object' };
    const version = range.parameters['v'] ?? '';
    if (range.parameters['g'] !== 'meta.k8s.io' || !metaVersions.includes(version)) continue;
    if (as === 'Table') return { as: 'Table', version };
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList')
      return { as: 'PartialObjectMetadata', version, list: as === 'PartialObjectMetadataList' };
  }
  throw StatusError.notAcceptable(
    'only the following media types are accepted: application/json, application/yaml, application/json;as=Table;v=v1;g=meta.k8s.io',
  );
}

const nameColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
};

const ageColumn: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
};

/**
 * Upstream's 406 when the PartialObjectMetadata form asked for does not fit the answer: a list asked as
 * `PartialObjectMetadata`, one object as `PartialObjectMetadataList`. Its message names the Go type
 * upstream answers with (`*core.ConfigMap`, `*unstructured.UnstructuredList`).
 */
export function partialObjectMetadataMismatch(definition: ResourceDefinition, isList: boolean): StatusError {
  const goPackage = definition.customResource ? 'unstructured' : definition.group === '' ? 'core' : (definition.group.split('.')[0] ?? '');
  const goType = `*${goPackage}.${definition.customResource ? 'Unstructured' : definition.kind}${isList ? 'List' : ''}`;
  return StatusError.notAcceptable(
    isList
      ? `you requested PartialObjectMetadata, but the requested object is a list (${goType})`
      : `you requested PartialObjectMetadataList, but the requested object is not a list (${goType})`,
  );
}

/** metav1.PartialObjectMetadata of an object. */
export function partialObjectMetadata(object: KubeObject, version = 'v1'): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: object.metadata };
}

/** How a Table row carries its object (`?includeObject=`). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** Parses `?includeObject=` (default Metadata). */
export function parseIncludeObject(value: string | null): IncludeObject {
  if (value === null || value === '' || value === 'Metadata') return 'Metadata';
  if (value === 'None' || value === 'Object') return value;
  throw StatusError.badRequest(
    `includeObject: Unsupported value: "${value}": supported values: "None", "Metadata", "Object"`,
  );
}

/** Options of a Table response. */
export interface TableOptions {
  version: string;
  includeObject: IncludeObject;
  listMetadata?: Record<string, unknown>;
  now?: Date;
}

/** The printer columns of a resource (Age when none are declared), one array per definition. */
export function tableColumns(definition: ResourceDefinition): readonly PrinterColumn[] {
  return definition.printerColumns ?? defaultColumns;
}

const defaultColumns: readonly PrinterColumn[] = [ageColumn];

/** A Table without its rows: kind, apiVersion, metadata and the column definitions (Name first). */
export function tableEnvelope(definition: ResourceDefinition, options: TableOptions): KubeObject {
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${options.version}`,
    metadata: options.listMetadata ?? {},
    columnDefinitions: [
      nameColumn,
      ...tableColumns(definition).map((column) => ({
        name: column.name,
        type: column.type,
        format: column.format ?? '',
        description: column.description ?? '',
        priority: column.priority ?? 0,
      })),
    ],
  };
}

/**
 * Builds a `meta.k8s.io` Table of `objects` with Name plus the resource's printer columns (Age when
 * none are declared); kubectl adds Namespace itself. `date` cells are ages relative to `now`; the other
 * cells are computed once per object version ({@link cachedCells}).
 */
export function buildTable(
  definition: ResourceDefinition,
  objects: KubeObject[],
  options: TableOptions,
): KubeObject {
  const columns = tableColumns(definition);
  const now = options.now ?? new Date();
  return {
    ...tableEnvelope(definition, options),
    rows: objects.map((object) => {
      const row: Record<string, unknown> = { cells: renderCells(cachedCells(columns, object), now) };
      if (options.includeObject === 'Metadata')
        row['object'] = partialObjectMetadata(object, options.version);
      if (options.includeObject === 'Object') row['object'] = object;
      return row;
    }),
  };
}
