import type { KubeObject } from '@kapi/apimachinery';
import type { PrinterColumn } from '../resource-definition.js';
import { humanDuration } from './human-duration.js';
import { evaluateJsonPath } from './json-path.js';

/** A `date` cell before it becomes an age: the time it shows (ms), `null`, or an unparsable date. */
type DateCell = { time: number } | null | '<invalid>';

/**
 * An object's cells under one set of columns, computed once per object version: every cell but the
 * `date` ones is final; those keep their time and become ages when a response is made.
 */
export interface CachedCells {
  /** Name, then one value per column (`date` cells as {@link DateCell}). */
  values: readonly unknown[];
  /** Indexes in `values` of the `date` cells. */
  dates: readonly number[];
}

/** Cells per object (objects served from the watch cache are shared and read-only) and column list. */
const cellCache = new WeakMap<object, WeakMap<readonly PrinterColumn[], CachedCells>>();

function dateCell(values: unknown[]): DateCell {
  const first = values[0];
  if (typeof first !== 'string') return null;
  const time = Date.parse(first);
  return Number.isNaN(time) ? '<invalid>' : { time };
}

function cellValue(column: PrinterColumn, object: KubeObject): unknown {
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
    case 'date':
      // As apiextensions' table convertor: dates are rendered as ages on the server (see renderCells).
      return dateCell(values);
    case 'string': {
      const shown = column.matches === 'first' ? [first] : values;
      return shown.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(',');
    }
  }
}

/**
 * The cells of `object` under `columns`, made once per object and column list and dropped with the
 * object: a changed object is a new object (the watch cache never mutates what it holds), so it gets
 * new cells.
 */
export function cachedCells(columns: readonly PrinterColumn[], object: KubeObject): CachedCells {
  let byColumns = cellCache.get(object);
  if (!byColumns) {
    byColumns = new WeakMap();
    cellCache.set(object, byColumns);
  }
  let cells = byColumns.get(columns);
  if (!cells) {
    const dates: number[] = [];
    columns.forEach((column, index) => {
      if (column.type === 'date' && !column.cell) dates.push(index + 1);
    });
    cells = { values: [object.metadata.name ?? '', ...columns.map((column) => cellValue(column, object))], dates };
    byColumns.set(columns, cells);
  }
  return cells;
}

/** A `date` cell as the age it shows at `now`. */
export function renderDate(cell: unknown, now: Date): unknown {
  if (cell === null || typeof cell === 'string') return cell;
  return humanDuration(now.getTime() - (cell as { time: number }).time);
}

/** The row's cells as sent: the cached values with `date` cells rendered as ages at `now`. */
export function renderCells(cells: CachedCells, now: Date): unknown[] {
  const values = [...cells.values];
  for (const index of cells.dates) values[index] = renderDate(values[index], now);
  return values;
}
