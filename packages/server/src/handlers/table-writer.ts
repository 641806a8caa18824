import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '@kapi/apimachinery';
import type { PrinterColumn, ResourceDefinition } from '../resource-definition.js';
import { comma, objectJson, openArray, writeJsonParts } from './list-writer.js';
import { wantsPretty, writeObject } from './response-writer.js';
import { sharedSerialization } from './shared-serialization.js';
import { cachedCells, renderDate, type CachedCells } from './table-cells.js';
import { buildTable, partialObjectMetadata, tableColumns, tableEnvelope, type TableOptions } from './table.js';

const rowClose = Buffer.from('}');
const rowsClose = Buffer.from(']}');

/**
 * A row's JSON up to its object, in pieces around the `date` cells (`{"cells":["a",2,` + age + `]`),
 * made once per cached cells and reused by every response that sends them.
 */
const rowPieces = new WeakMap<CachedCells, string[]>();

function pieces(cells: CachedCells): string[] {
  let result = rowPieces.get(cells);
  if (!result) {
    result = [];
    let text = '{"cells":[';
    cells.values.forEach((value, index) => {
      if (index > 0) text += ',';
      if (cells.dates.includes(index)) {
        (result as string[]).push(text);
        text = '';
      } else text += JSON.stringify(value ?? null);
    });
    result.push(`${text}]`);
    rowPieces.set(cells, result);
  }
  return result;
}

/** The row's cells as JSON, with its `date` cells rendered at `now` and the object field opened. */
function cellsJson(cells: CachedCells, now: Date, withObject: boolean): Buffer {
  const parts = pieces(cells);
  let text = parts[0] as string;
  cells.dates.forEach((index, position) => {
    text += JSON.stringify(renderDate(cells.values[index], now)) + (parts[position + 1] as string);
  });
  return Buffer.from(withObject ? `${text},"object":` : `${text}}`);
}

/** The object a row carries, as shared bytes (`includeObject=Metadata` or `Object`). */
function rowObject(object: KubeObject, options: TableOptions): Buffer {
  if (options.includeObject === 'Object') return objectJson(object);
  return sharedSerialization(object, `PartialObjectMetadata/${options.version}`, () =>
    JSON.stringify(partialObjectMetadata(object, options.version)),
  );
}

function rowParts(columns: readonly PrinterColumn[], object: KubeObject, options: TableOptions, now: Date): Buffer[] {
  const withObject = options.includeObject !== 'None';
  const cells = cellsJson(cachedCells(columns, object), now, withObject);
  return withObject ? [cells, rowObject(object, options), rowClose] : [cells];
}

/**
 * Writes the Table of `objects` (what `kubectl get` asks for) as {@link buildTable} makes it, without
 * encoding it as one string: each row is spliced from its cells, computed once per object version, and
 * its object's cached encoding; only the `date` cells (ages) are rendered per response. Pretty output
 * goes through {@link writeObject}.
 */
export async function writeTable(
  request: IncomingMessage,
  response: ServerResponse,
  code: number,
  definition: ResourceDefinition,
  objects: readonly KubeObject[],
  options: TableOptions,
): Promise<void> {
  if (response.headersSent || wantsPretty(request))
    return writeObject(request, response, code, buildTable(definition, [...objects], options));
  const columns = tableColumns(definition);
  const now = options.now ?? new Date();
  const parts = [openArray(tableEnvelope(definition, options), 'rows')];
  objects.forEach((object, index) => {
    if (index > 0) parts.push(comma);
    parts.push(...rowParts(columns, object, options, now));
  });
  parts.push(rowsClose);
  return writeJsonParts(request, response, code, parts);
}
