/**
 * The `import-cycle` rule of `.ci/check_layers.ts`: finds the import cycles of a module graph,
 * inside folders too (a cycle between two files of one folder counts like one across folders).
 * Type-only imports count: a cycle of types is still two modules that cannot be read apart.
 *
 * @module
 */

/** A module graph: each file's imports of other files of the same graph. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** One import cycle: a strongly connected component of the graph. */
export interface ImportCycle {
  /** The shortest cycle through the first file, that file repeated at the end. */
  readonly path: readonly string[];
  /** Every file of the component, sorted (a component can hold several cycles). */
  readonly files: readonly string[];
}

/**
 * The import cycles of `graph`: one per strongly connected component with more than one file (or a
 * file importing itself), given as its shortest cycle through the component's first file in path
 * order (`["a.ts", "b.ts", "a.ts"]`) and its files. Sorted by that first file.
 *
 * @param graph The graph; imports of files outside it are ignored.
 * @returns The cycles, `[]` for an acyclic graph.
 */
export function findImportCycles(graph: ImportGraph): ImportCycle[] {
  const cycles: ImportCycle[] = [];
  for (const component of stronglyConnected(graph)) {
    const files = [...component].sort();
    const first = files[0]!;
    if (files.length === 1 && !(graph.get(first) ?? []).includes(first)) continue;
    cycles.push({ path: shortestCycle(graph, first, new Set(files)), files });
  }
  return cycles.sort((a, b) => a.files[0]! < b.files[0]! ? -1 : a.files[0]! > b.files[0]! ? 1 : 0);
}

/** Tarjan's algorithm, iterative (deep graphs must not overflow the stack). */
function stronglyConnected(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  let next = 0;
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: { node: string; edge: number }[] = [{ node: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work.at(-1)!;
      const edges = (graph.get(frame.node) ?? []).filter((to) => graph.has(to));
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work.at(-1);
      if (parent !== undefined) {
        low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        out.push(component);
      }
    }
  }
  return out;
}

/** The shortest path `start → … → start` inside `members` (breadth first, imports in path order). */
function shortestCycle(graph: ImportGraph, start: string, members: ReadonlySet<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const to of [...(graph.get(node) ?? [])].sort()) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start]; // Unreachable for a real component.
}
