/**
 * The one shape every config error takes (YAML syntax, `${VAR}`, schema, cross-reference), so the
 * CLI, startup and hot reload all print the same `file:line:col path message` lines.
 */
import path from 'node:path';
import type { Document, LineCounter } from 'yaml';
import { findNode, formatPath, nodePosition, type Segment } from './positions.ts';

/** One problem in a config file. `line`/`col` are 1-based. */
export interface ConfigProblem {
  file: string;
  line: number;
  col: number;
  /** YAML path such as `providers[0].type`; `(root)` for the document itself. */
  path: string;
  message: string;
}

/** A problem located by data path, before its position in the file is known. */
export interface PathProblem {
  segments: Segment[];
  message: string;
  /** Point at the key of the last segment rather than its value (unknown fields, duplicates). */
  atKey?: boolean;
  /** Locate the problem at this path instead of `segments` (e.g. the parent of a missing field). */
  at?: Segment[];
}

/**
 * A refusal about places in gateway.yaml found after the load (the pipeline's step order, say):
 * the config holder gives each problem its file:line:col.
 */
export class ConfigPathError extends Error {
  constructor(readonly problems: PathProblem[]) {
    super(problems.map((p) => p.message).join('; '));
    this.name = 'ConfigPathError';
  }
}

/**
 * Renders a problem as one line: `gateway.yaml:14:11 providers[0].type must be one of ...`.
 * The file is shown relative to the working directory when it lies below it.
 */
export function formatProblem(p: ConfigProblem): string {
  const rel = path.relative(process.cwd(), p.file);
  const shown = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p.file;
  return `${shown}:${p.line}:${p.col} ${p.path} ${p.message}`;
}

/** Attaches file positions to path problems and sorts them in file order. */
export function locateProblems(
  problems: readonly PathProblem[],
  doc: Document,
  lines: LineCounter,
  file: string,
): ConfigProblem[] {
  const seen = new Set<string>();
  const out: ConfigProblem[] = [];
  for (const p of problems) {
    const node = findNode(doc, p.at ?? p.segments, p.atKey === true && !p.at);
    const { line, col } = nodePosition(node, lines);
    const located = { file, line, col, path: formatPath(p.segments), message: p.message };
    const id = `${line}:${col}:${located.path}:${located.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(located);
  }
  return sortProblems(out);
}

/** File order: line, then column. */
export function sortProblems(problems: ConfigProblem[]): ConfigProblem[] {
  return problems.sort((a, b) => a.line - b.line || a.col - b.col);
}
