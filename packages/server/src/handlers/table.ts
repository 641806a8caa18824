import type { IncomingMessage } from 'node:http';
import { StatusError, type KubeObject } from '@kapi/apimachinery';
import type { PrinterColumn, ResourceDefinition } from '../resource-definition.js';
import { humanDuration } from './human-duration.js';
import { evaluateJsonPath } from './json-path.js';

/** What a response is rendered as, from the Accept header. */
export type ResponseForm =
  | { as: 'object'; yaml?: boolean }
  | { as: 'Table'; version: string }
  | { as: 'PartialObjectMetadata'; version: string };

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
      return { as: 'PartialObjectMetadata', version };
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

/** metav1.PartialObjectMetadata of an object. */
export function partialObjectMetadata(object: KubeObject, version = 'v1'): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: object.metadata };
}

function cellValue(column: PrinterColumn, object: KubeObject, now: Date): unknown {
  if (column.cell) return column.cell(object);
  let values: unknown[];
  try {
    values = evaluateJsonPath(column.jsonPath, object);
  } catch {
    return null;
  }
  if (values.length === 0) return null;
  const first = values[0];
  switch (column.type) {
    case 'integer':
    case 'number':
      // A map or list under an integer column is shown as its size (e.g. ConfigMap DATA, ServiceAccount SECRETS).
      if (Array.isArray(first)) return first.length;
      if (typeof first === 'object' && first !== null) return Object.keys(first).length;
      return typeof first === 'number' ? first : null;
    case 'boolean':
      return typeof first === 'boolean' ? first : null;
    case 'date': {
      // As apiextensions' table convertor: dates are rendered as ages on the server.
      if (typeof first !== 'string') return null;
      const time = Date.parse(first);
      return Number.isNaN(time) ? '<invalid>' : humanDuration(now.getTime() - time);
    }
    case 'string':
      return values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(',');
  }
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

/**
 * Builds a `meta.k8s.io` Table of `objects` with Name plus the resource's printer columns (Age when
 * none are declared); kubectl adds Namespace itself. `date` cells are ages relative to `now`.
 */
export function buildTable(
  definition: ResourceDefinition,
  objects: KubeObject[],
  options: {
    version: string;
    includeObject: IncludeObject;
    listMetadata?: Record<string, unknown>;
    now?: Date;
  },
): KubeObject {
  const columns = definition.printerColumns ?? [ageColumn];
  const now = options.now ?? new Date();
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${options.version}`,
    metadata: options.listMetadata ?? {},
    columnDefinitions: [
      nameColumn,
      ...columns.map((column) => ({
        name: column.name,
        type: column.type,
        format: column.format ?? '',
        description: column.description ?? '',
        priority: column.priority ?? 0,
      })),
    ],
    rows: objects.map((object) => {
      const row: Record<string, unknown> = {
        cells: [object.metadata.name ?? '', ...columns.map((column) => cellValue(column, object, now))],
      };
      if (options.includeObject === 'Metadata')
        row['object'] = partialObjectMetadata(object, options.version);
      if (options.includeObject === 'Object') row['object'] = object;
      return row;
    }),
  };
}
