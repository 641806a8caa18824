import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { Clients } from './h2-bench.js';
import { usedMemory } from './harness.js';
import { benchToken, startServer } from './http-bench.js';
import { WatcherProcess, rawWatchServer } from './watch-fanout.js';
import { rawH2WatchServer } from './watch-heap-h2.js';

/**
 * Where an idle watch's heap goes (issue 17), a tool rather than a scenario:
 * `node --import tsx src/watch-heap-snapshot.ts <h1|h2> [watchers]` (on the built packages: build them first) starts an
 * in-process kube-apiserver-lite (memory storage), takes a heap snapshot, opens `watchers` idle watches
 * (bookmarks allowed; over h2, 1,000 streams per connection) from a child process, takes another, and
 * prints the object kinds (type and constructor name) whose count or self size grew, per watch.
 * `control` as a third argument measures the bare server of the heap rows instead; `STRINGS=1` groups
 * strings by their text; `RETAINERS=<text>[,<text>...]` also prints who holds the kinds whose name contains one of them.
 * Not on the sources (`--conditions=@kapi/source`): tsx keeps function names, which gives every bound
 * function a dictionary of properties (in all about 0.4 KB more per watch than the published build).
 */
const protocol = process.argv[2] === 'h1' ? 'h1' : 'h2';
/** `control` as the third argument: the bare node:https / node:http2 server of the heap rows instead. */
const bare = process.argv[4] === 'control';
const watchers = Number(process.argv[3] ?? 2000);

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  locations: number[];
  strings: string[];
}

/** Kinds told apart by the names of their properties (or context variables) too. */
const byShape = new Set(['Object', 'system / Context', 'Array', '(object properties)']);

/**
 * Count and self size of every kind in a heap snapshot file: type and constructor name, and for plain
 * objects and contexts the names of their first properties (or variables), so that one allocation site's
 * objects group together.
 */
function summarise(file: string): Map<string, { count: number; size: number }> {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const { node_fields: fields, node_types: nodeTypes, edge_fields: edgeFields, edge_types: edgeTypes } = parsed.snapshot.meta;
  const types = nodeTypes[0];
  const [typeAt, nameAt, sizeAt, edgeCountAt] = ['type', 'name', 'self_size', 'edge_count'].map((field) => fields.indexOf(field)) as [number, number, number, number];
  const [edgeTypeAt, edgeNameAt] = ['type', 'name_or_index'].map((field) => edgeFields.indexOf(field)) as [number, number];
  const named = new Set(['context', 'property'].map((type) => edgeTypes[0].indexOf(type)));
  const kinds = new Map<string, { count: number; size: number }>();
  const { nodes, edges, strings } = parsed;
  const retained = process.env.RETAINERS?.split(',');
  const wanted = new Set<number>();
  const firstEdge = new Map<number, number>();
  for (let index = 0, edge = 0; index < nodes.length; index += fields.length) {
    firstEdge.set(index, edge);
    edge += (nodes[index + edgeCountAt] ?? 0) * edgeFields.length;
  }
  const toAt = edgeFields.indexOf('to_node');
  /** The names of a node's first named edges (properties, context variables). */
  const edgeNames = (index: number, only?: string): string[] => {
    const names: string[] = [];
    const start = firstEdge.get(index) ?? 0;
    const end = start + (nodes[index + edgeCountAt] ?? 0) * edgeFields.length;
    for (let at = start; at < end && names.length < 8; at += edgeFields.length) {
      const type = edges[at + edgeTypeAt] ?? -1;
      const name = named.has(type) ? (strings[edges[at + edgeNameAt] ?? 0] ?? '?') : undefined;
      if (only !== undefined) {
        if (edgeTypes[0][type] === 'internal' && strings[edges[at + edgeNameAt] ?? 0] === only) return edgeNames(edges[at + toAt] ?? 0);
      } else if (name !== undefined) names.push(name);
    }
    return names;
  };
  // A closure's source position (script:line:column; the line and column 0-based, of the transpiled source).
  const located = new Map<number, string>();
  for (let at = 0; at + 3 < parsed.locations.length; at += 4) {
    located.set(parsed.locations[at] ?? 0, `${parsed.locations[at + 1]}:${(parsed.locations[at + 2] ?? 0) + 1}:${parsed.locations[at + 3]}`);
  }
  const scriptNames = new Map<string, string>();
  const where = (index: number): string => {
    const position = located.get(index);
    if (!position) return '';
    const script = position.slice(0, position.indexOf(':'));
    if (!scriptNames.has(script)) scriptNames.set(script, scriptName(index) ?? script);
    return ` @${scriptNames.get(script)}${position.slice(script.length)}`;
  };
  /** The file of a closure: closure -shared-> function info -script-> script -name-> string. */
  const scriptName = (index: number): string | undefined => {
    const follow = (from: number, edgeName: string): number | undefined => {
      const start = firstEdge.get(from) ?? 0;
      const end = start + (nodes[from + edgeCountAt] ?? 0) * edgeFields.length;
      for (let at = start; at < end; at += edgeFields.length) if (strings[edges[at + edgeNameAt] ?? 0] === edgeName) return edges[at + toAt];
      return undefined;
    };
    const shared = follow(index, 'shared');
    const script = shared === undefined ? undefined : follow(shared, 'script');
    const name = script === undefined ? undefined : follow(script, 'name');
    return name === undefined ? undefined : (strings[nodes[name + nameAt] ?? 0] ?? '').replace(/^.*\/(packages|apps|node_modules)\//, '');
  };
  for (let index = 0; index < nodes.length; index += fields.length) {
    const type = types[nodes[index + typeAt] ?? 0] ?? '?';
    const rawName = strings[nodes[index + nameAt] ?? 0] ?? '?';
    // Strings and code are grouped by type (their names are their contents or sources).
    let name = type === 'object' || type === 'native' || type === 'closure' || type === 'hidden' || type === 'array' ? rawName.slice(0, 60) : '';
    if (process.env.STRINGS && type.includes('string')) name = rawName.slice(0, 50).replace(/[0-9a-f]{4,}/g, '#').replace(/[0-9]+/g, '9');
    if (byShape.has(name)) name += ` {${edgeNames(index).join(',')}}`;
    else if (type === 'closure') name += ` [${edgeNames(index, 'context').join(',')}]${where(index)}`;
    const key = `${type} ${name}`;
    if (retained?.some((text) => key.includes(text))) wanted.add(index);
    const kind = kinds.get(key) ?? { count: 0, size: 0 };
    kind.count++;
    kind.size += nodes[index + sizeAt] ?? 0;
    kinds.set(key, kind);
  }
  if (wanted.size > 0) {
    // Who holds the wanted nodes: the retainer's kind and the edge's name.
    const kindOf = (index: number) => `${types[nodes[index + typeAt] ?? 0] ?? '?'} ${(strings[nodes[index + nameAt] ?? 0] ?? '?').slice(0, 40)}`;
    for (const [index, start] of firstEdge) {
      const end = start + (nodes[index + edgeCountAt] ?? 0) * edgeFields.length;
      for (let at = start; at < end; at += edgeFields.length) {
        const to = edges[at + toAt] ?? -1;
        if (!wanted.has(to)) continue;
        const edgeType = edgeTypes[0][edges[at + edgeTypeAt] ?? 0];
        const edgeName = edgeType === 'element' || edgeType === 'hidden' ? String(edges[at + edgeNameAt]) : strings[edges[at + edgeNameAt] ?? 0];
        const shape = byShape.has(strings[nodes[index + nameAt] ?? 0] ?? '') ? ` {${edgeNames(index).join(',')}}` : '';
        const key = `RETAINER ${kindOf(index)}${shape} .${edgeType === 'element' ? '[]' : edgeName}`;
        const kind = kinds.get(key) ?? { count: 0, size: 0 };
        kind.count++;
        kinds.set(key, kind);
      }
    }
  }
  rmSync(file);
  return kinds;
}

const directory = mkdtempSync(join(tmpdir(), 'kapi-watch-snapshot-'));
const server = await startServer(directory, ['--storage=memory', '--http2-max-streams-per-connection=1000']);
const path = '/api/v1/namespaces/default/configmaps';
const created = await server.client.request<{ metadata: { resourceVersion: string } }>({ method: 'POST', path, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'idle' } } });
const watchPath = `${path}?watch=true&allowWatchBookmarks=true&resourceVersion=${created.metadata.resourceVersion}`;
await usedMemory();
const tls = { key: readFileSync(join(directory, 'apiserver.key'), 'utf8'), cert: readFileSync(join(directory, 'apiserver.crt'), 'utf8') };
const raw = bare ? await (protocol === 'h2' ? rawH2WatchServer(tls, 1000) : rawWatchServer(tls)) : undefined;
const origin = raw?.url ?? server.running.url;
// Both snapshots are summarised after both are taken: a summary made earlier (its Map and key strings)
// would be in the second snapshot and count as growth.
const beforeFile = writeHeapSnapshot(join(directory, 'before.heapsnapshot'));
const usedBefore = await usedMemory();
let close: () => Promise<void>;
if (protocol === 'h2') {
  const clients = new Clients({ mode: 'watch', protocol: 'h2', origin, path: watchPath, ca: server.ca, token: benchToken, count: watchers, streamsPerSession: 1000 });
  const ready = await clients.next('ready', 300_000);
  if (Number(ready.open) !== watchers) throw new Error(`${String(ready.open)} of ${watchers} opened`);
  close = () => clients.close();
} else {
  const clients = new WatcherProcess({ url: `${origin}${watchPath}`, ca: server.ca, headers: { authorization: `Bearer ${benchToken}` }, watchers });
  await clients.ready(300_000, watchers);
  close = () => clients.close();
}
const usedAfter = await usedMemory();
const afterFile = writeHeapSnapshot(join(directory, 'after.heapsnapshot'));
const before = summarise(beforeFile);
const after = summarise(afterFile);
const grown = [...after]
  .map(([key, kind]) => {
    const old = before.get(key) ?? { count: 0, size: 0 };
    return { key, count: (kind.count - old.count) / watchers, bytes: (kind.size - old.size) / watchers };
  })
  .filter((kind) => kind.bytes >= 8 || kind.count >= 0.5)
  .sort((a, b) => b.bytes - a.bytes);
console.log(`${protocol}${bare ? ' bare control' : ''}: ${watchers} watches, heapUsed + external ${((usedAfter - usedBefore) / watchers).toFixed(0)} B per watch; per watch by kind (objects, self bytes):`);
for (const kind of grown.filter((entry) => !entry.key.startsWith('RETAINER')).slice(0, 60)) console.log(`${kind.count.toFixed(2).padStart(8)} ${kind.bytes.toFixed(0).padStart(7)}  ${kind.key}`);
for (const kind of grown.filter((entry) => entry.key.startsWith('RETAINER')).sort((a, b) => b.count - a.count).slice(0, 60)) console.log(`${kind.count.toFixed(2).padStart(8)}  ${kind.key}`);
console.log(`total self bytes per watch: ${grown.reduce((sum, kind) => sum + kind.bytes, 0).toFixed(0)}`);
await close();
await raw?.close();
server.client.close();
await server.running.stop();
rmSync(directory, { recursive: true, force: true });
process.exit(0);
