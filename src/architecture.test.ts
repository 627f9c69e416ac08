/**
 * The shape of the source tree (README "Architecture"): every folder of src/ sits in a layer and
 * imports only from the layers below it; no two folders import each other, directly or around a
 * loop (each feature under src/features counts as a folder of its own); and no feature reaches
 * into another one's routes or install. Only code counts: tests, test helpers and `import type`
 * lines make no edge between folders, as in ../shared/tools/folder-cycles.mjs. Between files, type
 * imports count too (a type that points back is still a loop), as in ../shared/tools/file-cycles.mjs:
 * no file circle, and no file of src/kernel importing anything outside it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** Bottom first. Folders in one layer must not import each other. */
const LAYERS: readonly (readonly string[])[] = [
  ['kernel'], // errors catalog, logger, small pure helpers: imports nothing above it
  ['config'], // load, schema, snapshot, the config in force (holder), write-back
  ['store'], // shared state: memory or Redis
  ['pipeline'], // the step machinery: context, compose, plugin types, rendering, services, tracing
  ['providers'], // one adapter per upstream wire format, the transport
  ['routing'], // targets, attempts, fallback, breaker, stream relay
  ['auth'], // credentials, scopes, account policy
  ['quota', 'i18n'], // budgets and counters; texts in each language
  ['http'], // request plumbing for routes: body, client address, route and feature types
  ['plugins'], // one file or folder per built-in step
  ['features'], // one folder per feature, each with its install()
  ['boot', 'cli'], // assembly and shutdown order; command-line tools
  ['(root)'], // main.ts (entry) and server.ts (the HTTP shell)
];

const SRC = path.dirname(fileURLToPath(import.meta.url));
const isCode = (name: string) => /\.(ts|mts|tsx)$/.test(name) && !/\.(test|spec)\.|test-|\.suite\.|-suite\.|\.d\.ts$/.test(name);

function codeFiles(dir: string, found: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) codeFiles(full, found);
    else if (isCode(name)) found.push(full);
  }
  return found;
}

/** `features/<name>` for a feature's files, else the top-level folder; `(root)` for src/*.ts. */
function unitOf(file: string): string {
  const parts = path.relative(SRC, file).split(path.sep);
  if (parts.length === 1) return '(root)';
  return parts[0] === 'features' && parts.length > 2 ? `features/${parts[1]}` : parts[0]!;
}
const layerName = (unit: string) => unit.split('/')[0]!;

interface Edge {
  from: string;
  to: string;
  fromFile: string;
  toFile: string;
}

function runtimeImports(): Edge[] {
  const edges: Edge[] = [];
  for (const file of codeFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/gm)) {
      if (/^\s*import\s+type\s/.test(match[0])) continue;
      const target = path.resolve(path.dirname(file), match[1]!);
      if (!target.startsWith(SRC + path.sep)) continue;
      const from = unitOf(file);
      const to = unitOf(target);
      if (from !== to) edges.push({ from, to, fromFile: path.relative(SRC, file), toFile: path.relative(SRC, target) });
    }
  }
  return edges;
}

/** Strongly connected components with more than one unit (Tarjan). */
function cycles(edges: Edge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) next.set(from, (next.get(from) ?? new Set()).add(to));
  const nodes = [...new Set(edges.flatMap((e) => [e.from, e.to]))];
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return found;
}

/** Every import between code files (generated ones left out), type-only ones included. */
function fileImports(): Edge[] {
  const files = codeFiles(SRC).filter((file) => !file.includes('.generated.'));
  const known = new Set(files);
  const found: Edge[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/gm)) {
      const target = path.resolve(path.dirname(file), match[1]!);
      if (!known.has(target) || target === file) continue;
      const from = path.relative(SRC, file);
      const to = path.relative(SRC, target);
      found.push({ from, to, fromFile: from, toFile: to });
    }
  }
  return found;
}

const edges = runtimeImports();
const fileEdges = fileImports();
const layerOf = new Map(LAYERS.flatMap((names, level) => names.map((name) => [name, level] as const)));

describe('source tree', () => {
  it('places every folder of src/ in a layer', () => {
    const folders = readdirSync(SRC).filter((name) => statSync(path.join(SRC, name)).isDirectory());
    expect(folders.filter((folder) => !layerOf.has(folder))).toEqual([]);
  });

  it('imports only from lower layers', () => {
    const upward = edges
      .filter((e) => layerName(e.from) !== layerName(e.to))
      .filter((e) => layerOf.get(layerName(e.from))! <= layerOf.get(layerName(e.to))!)
      .map((e) => `${e.fromFile} -> ${e.toFile}`);
    expect(upward).toEqual([]);
  });

  it('has no folder-level import cycle, features counted one by one', () => {
    expect(cycles(edges)).toEqual([]);
  });

  it('keeps the pipeline machinery free of plugins and features', () => {
    const reaching = edges.filter((e) => e.from === 'pipeline' && /^(plugins|features)/.test(e.to)).map((e) => `${e.fromFile} -> ${e.toFile}`);
    expect(reaching).toEqual([]);
  });

  it("never lets a feature import another feature's routes or install", () => {
    const foreign = edges
      .filter((e) => e.from.startsWith('features/') && e.to.startsWith('features/'))
      .filter((e) => /(^|[/-])routes\.ts$|\/index\.ts$/.test(e.toFile))
      .map((e) => `${e.fromFile} -> ${e.toFile}`);
    expect(foreign).toEqual([]);
  });

  it('has no file-level import cycle, type-only imports included', () => {
    expect(cycles(fileEdges)).toEqual([]);
  });

  it('keeps src/kernel the ground floor: none of its files imports outside it, types included', () => {
    const leaving = fileEdges.filter((e) => e.from.startsWith(`kernel${path.sep}`) && !e.to.startsWith(`kernel${path.sep}`)).map((e) => `${e.from} -> ${e.to}`);
    expect(leaving).toEqual([]);
  });

  it('finds file circles and type imports (the file scan itself works)', () => {
    expect(fileEdges.some((e) => e.from === path.join('pipeline', 'context.ts') && e.to === path.join('pipeline', 'context-types.ts'))).toBe(true);
    const loop: Edge[] = [
      { from: 'a.ts', to: 'b.ts', fromFile: 'a.ts', toFile: 'b.ts' },
      { from: 'b.ts', to: 'a.ts', fromFile: 'b.ts', toFile: 'a.ts' },
    ];
    expect(cycles(loop)).toEqual([['a.ts', 'b.ts']]);
  });

  it('sees the imports it checks (the scan itself works)', () => {
    expect(edges.some((e) => e.fromFile === 'main.ts' && e.to === 'boot')).toBe(true);
    expect(edges.some((e) => e.from === 'features/metrics' && e.to === 'features/logs')).toBe(true);
  });
});
