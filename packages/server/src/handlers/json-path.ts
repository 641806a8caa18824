/**
 * A small JSONPath evaluator for printer columns: `.a.b`, `.a[0]`, `.a[*].b`, `.a['x.y']`,
 * `.a[?(@.type=="Ready")].status` (also `!=`), optionally wrapped in `{}`.
 */

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: string[]; operator: '==' | '!='; value: string };

function parsePath(expression: string): Step[] {
  let text = expression.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
  if (text.startsWith('$')) text = text.slice(1);
  const steps: Step[] = [];
  let position = 0;
  while (position < text.length) {
    const character = text[position];
    if (character === '.') {
      const match = /^\.([^.[\]]+)/.exec(text.slice(position));
      if (!match?.[1]) {
        position += 1;
        continue;
      }
      steps.push({ kind: 'field', name: match[1] });
      position += match[0].length;
    } else if (character === '[') {
      const end = text.indexOf(']', position);
      if (end < 0) throw new Error(`unclosed bracket in ${expression}`);
      const inner = text.slice(position + 1, end).trim();
      position = end + 1;
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else {
        const filter =
          /^\?\(@((?:\.[A-Za-z0-9_-]+)+)\s*(==|!=)\s*(?:"([^"]*)"|'([^']*)'|([^\s)]+))\s*\)$/.exec(inner);
        if (!filter?.[1] || !filter[2]) throw new Error(`unsupported JSONPath element [${inner}]`);
        steps.push({
          kind: 'filter',
          path: filter[1].split('.').filter(Boolean),
          operator: filter[2] === '!=' ? '!=' : '==',
          value: filter[3] ?? filter[4] ?? filter[5] ?? '',
        });
      }
    } else throw new Error(`unexpected ${JSON.stringify(character)} in JSONPath ${expression}`);
  }
  return steps;
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

function scalarText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Evaluates the expression against `root`, returning every match (empty when nothing matches). */
export function evaluateJsonPath(expression: string, root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const step of parsePath(expression)) {
    const next: unknown[] = [];
    for (const value of current) {
      if (step.kind === 'field') {
        const child = field(value, step.name);
        if (child !== undefined) next.push(child);
      } else if (Array.isArray(value)) {
        if (step.kind === 'all') next.push(...value);
        else if (step.kind === 'index') {
          const child = value[step.index < 0 ? value.length + step.index : step.index];
          if (child !== undefined) next.push(child);
        } else {
          for (const item of value) {
            const actual = step.path.reduce<unknown>((object, name) => field(object, name), item);
            const equal = actual !== undefined && scalarText(actual) === step.value;
            if (step.operator === '==' ? equal : actual !== undefined && !equal) next.push(item);
          }
        }
      }
    }
    current = next;
  }
  return current;
}
