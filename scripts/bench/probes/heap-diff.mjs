#!/usr/bin/env node
// What a process kept between two heap snapshots of it (V8 .heapsnapshot files, taken in that order
// by --heapsnapshot-signal or v8.writeHeapSnapshot): the objects of the second that were not in the
// first (V8 keeps an object's id from one snapshot of a process to the next), by kind and constructor,
// with their count and self size, and for the kinds that grew most, the chain of retainers of one of
// them up to a GC root, so a growth points at the code that holds it. A snapshot is taken after a
// full collection: everything in it was alive.
//
//   node --max-old-space-size=4096 scripts/bench/probes/heap-diff.mjs <first.heapsnapshot> <second.heapsnapshot> [top=15]
//
// memory.mjs runs it on the snapshots it takes; its summary() is exported for that.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The parsed snapshot with what the rest needs: nodes by index, the reverse edges, the live self size. */
export function readSnapshot(file) {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  const meta = raw.snapshot.meta;
  const nodeFields = meta.node_fields.length;
  const edgeFields = meta.edge_fields.length;
  const [typeAt, nameAt, idAt, sizeAt, edgeCountAt] = ['type', 'name', 'id', 'self_size', 'edge_count'].map((f) =>
    meta.node_fields.indexOf(f),
  );
  const [edgeTypeAt, edgeNameAt, edgeToAt] = ['type', 'name_or_index', 'to_node'].map((f) =>
    meta.edge_fields.indexOf(f),
  );
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const { nodes, edges, strings } = raw;
  const count = nodes.length / nodeFields;
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0, e = 0; i < count; i += 1) {
    firstEdge[i] = e;
    e += nodes[i * nodeFields + edgeCountAt] * edgeFields;
    firstEdge[i + 1] = e;
  }
  // One retainer per node is enough to show a chain: the first strong edge found to it.
  const retainer = new Int32Array(count).fill(-1);
  const retainerEdge = new Int32Array(count).fill(-1);
  for (let i = 0; i < count; i += 1) {
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += edgeFields) {
      const kind = edgeTypes[edges[e + edgeTypeAt]];
      if (kind === 'weak' || kind === 'shortcut') continue;
      const to = edges[e + edgeToAt] / nodeFields;
      if (retainer[to] === -1) {
        retainer[to] = i;
        retainerEdge[to] = e;
      }
    }
  }
  let total = 0;
  for (let i = 0; i < count; i += 1) total += nodes[i * nodeFields + sizeAt];
  const node = (i) => ({
    type: nodeTypes[nodes[i * nodeFields + typeAt]],
    name: strings[nodes[i * nodeFields + nameAt]],
    id: nodes[i * nodeFields + idAt],
    size: nodes[i * nodeFields + sizeAt],
  });
  const edgeName = (e) => {
    const kind = edgeTypes[edges[e + edgeTypeAt]];
    const value = edges[e + edgeNameAt];
    return kind === 'element' || kind === 'hidden' ? `[${value}]` : String(strings[value]);
  };
  return { count, total, node, retainer, retainerEdge, edgeName };
}

/** The kind of a node for grouping: the constructor of an object, the name of a closure, else V8's type. */
function kindOf({ type, name }) {
  if (type === 'object') return name;
  if (type === 'closure') return `closure ${name || '(anonymous)'}`;
  if (type === 'array' || type === 'hidden' || type === 'code' || type === 'object shape')
    return `(${type}) ${name.length > 40 ? `${name.slice(0, 40)}…` : name}`;
  return `(${type})`;
}

/** The retainers of node `i` up to a root (or `depth` steps), as `Constructor.edge` links. */
function chain(snapshot, i, depth = 12) {
  const links = [];
  let at = i;
  for (let step = 0; step < depth && snapshot.retainer[at] !== -1; step += 1) {
    const by = snapshot.retainer[at];
    const holder = snapshot.node(by);
    links.push(`${kindOf(holder)}.${snapshot.edgeName(snapshot.retainerEdge[at])}`);
    at = by;
  }
  return links.join(' ← ');
}

/**
 * Compares two snapshots of one process: answers the live heap of each, and the objects only the
 * second holds, grouped by kind, largest first, with a retainer chain for the first `top`.
 */
export function summary(firstFile, secondFile, top = 15) {
  const first = readSnapshot(firstFile);
  const ids = new Set();
  for (let i = 0; i < first.count; i += 1) ids.add(first.node(i).id);
  const firstTotal = first.total;
  const second = readSnapshot(secondFile);
  const kinds = new Map();
  for (let i = 0; i < second.count; i += 1) {
    const n = second.node(i);
    if (ids.has(n.id)) continue;
    const kind = kindOf(n);
    const entry = kinds.get(kind) ?? { kind, count: 0, size: 0, sample: i };
    entry.count += 1;
    entry.size += n.size;
    kinds.set(kind, entry);
  }
  const grown = [...kinds.values()].sort((a, b) => b.size - a.size).slice(0, top);
  return {
    firstBytes: firstTotal,
    secondBytes: second.total,
    newObjects: grown.map((k) => ({ kind: k.kind, count: k.count, bytes: k.size, retainers: chain(second, k.sample) })),
  };
}

export function printSummary(result, write = (line) => process.stdout.write(`${line}\n`)) {
  const mb = (b) => (b / 1024 / 1024).toFixed(1);
  write(
    `live heap: ${mb(result.firstBytes)} MB → ${mb(result.secondBytes)} MB (${((result.secondBytes / result.firstBytes - 1) * 100).toFixed(1)} %)`,
  );
  write('objects of the second snapshot not in the first, by kind (count, self size), and what holds one of them:');
  for (const k of result.newObjects)
    write(`  ${k.kind}: ${k.count} objects, ${(k.bytes / 1024).toFixed(0)} kB\n      ${k.retainers}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [firstFile, secondFile, top] = process.argv.slice(2);
  if (!firstFile || !secondFile)
    throw new Error('usage: heap-diff.mjs <first.heapsnapshot> <second.heapsnapshot> [top]');
  printSummary(summary(firstFile, secondFile, Number(top ?? 15)));
}
