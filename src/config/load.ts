/**
 * gateway.yaml -> `GatewayConfig`: YAML parse -> `${ENV}` substitution -> env server defaults ->
 * schema (defaults filled) -> cross-reference checks -> normalisation. Every failure comes back as
 * located problems, never as a throw, so a bad hot reload can keep the running snapshot.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { LineCounter, parseDocument, type Scalar } from 'yaml';
import type { GatewayConfig } from './types.ts';
import { checkReferences } from './checks.ts';
import { interpolateData, interpolateDocument, type Env } from './interpolate.ts';
import { applyEnvDefaults, normalizeConfig } from './normalize.ts';
import { findNode, formatPath, nodePosition } from './positions.ts';
import { locateProblems, sortProblems, type ConfigProblem, type PathProblem } from './problems.ts';
import { dropUnknownFields, validateSchema } from './validate.ts';
import { CONFIG_VERSION, declaredVersion, ignoredFieldMessage, newerVersionRefusal } from './version.ts';
import { readSecretsSync, secretsPathFor, type Secrets } from './secrets.ts';

// Re-exported so callers need one import for load + report.
export { formatProblem, type ConfigProblem } from './problems.ts';

/** Outcome of a load: the config, or every problem found (never both, never a throw). */
export type LoadResult =
  | { ok: true; config: GatewayConfig; file: string; warnings?: ConfigProblem[] }
  | { ok: false; problems: ConfigProblem[]; file: string };

/**
 * Reads and validates a config file. `file` in the result (and in each problem) is absolute.
 * @example
 * const r = await loadConfigFile('gateway.yaml');
 * if (!r.ok) for (const p of r.problems) console.error(formatProblem(p));
 */
export async function loadConfigFile(file: string, env: Env = process.env): Promise<LoadResult> {
  const abs = path.resolve(file);
  let text: string;
  try {
    text = await readFile(abs, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message;
    return { ok: false, file: abs, problems: [{ file: abs, line: 1, col: 1, path: '(root)', message: `cannot be read: ${reason}` }] };
  }
  return loadConfigText(text, abs, env);
}

/**
 * Validates config text as if read from `file` (used by tests and the management API's dry runs).
 * `secrets` resolves `${secret:NAME}`; absent, the secrets file beside `file` is read when needed.
 */
export function loadConfigText(text: string, file: string, env: Env = process.env, secrets?: Secrets): LoadResult {
  const abs = path.resolve(file);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, keepSourceTokens: true, merge: true, prettyErrors: true });
  const fail = (problems: ConfigProblem[]): LoadResult => ({ ok: false, file: abs, problems: sortProblems(problems) });

  if (doc.errors.length) {
    return fail(
      doc.errors.map((e) => {
        const pos = e.linePos?.[0] ?? lines.linePos(e.pos[0]);
        return { file: abs, line: pos.line, col: pos.col, path: '(yaml)', message: firstLine(e.message) };
      }),
    );
  }

  let secretValues = secrets;
  if (!secretValues && text.includes('${secret:')) {
    try {
      secretValues = readSecretsSync(secretsPathFor(abs));
    } catch (err) {
      return fail([{ file: abs, line: 1, col: 1, path: '(secrets)', message: `secrets file cannot be read: ${(err as Error).message}` }]);
    }
  }
  const interpolation = interpolateDocument(doc, env, secretValues);
  if (interpolation.problems.length) {
    return fail(
      interpolation.problems.map((p) => ({
        file: abs,
        ...nodePosition(p.node, lines),
        path: pathOfNode(doc, p.node),
        message: p.message,
      })),
    );
  }

  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 1000 }) ?? {};
  } catch (err) {
    return fail([{ file: abs, line: 1, col: 1, path: '(yaml)', message: (err as Error).message }]);
  }

  const canCoerce = (segments: (string | number)[]) => {
    const node = findNode(doc, segments);
    return node !== null && interpolation.plain.has(node as Scalar);
  };
  const checked = checkConfigData(data, env, canCoerce);
  if (!checked.ok) return fail(locateProblems(checked.problems, doc, lines, abs));
  const warnings = checked.ignored.length ? { warnings: locateProblems(checked.ignored, doc, lines, abs) } : {};
  return { ok: true, file: abs, config: checked.config, ...warnings };
}

/**
 * The part of a load after the YAML: env server defaults, schema (defaults filled, `canCoerce`
 * as in `validateSchema`), cross-reference checks, normalisation. `data` is interpolated and is
 * mutated into the config. Problems come back by path, before positions are known. A config of a
 * newer version than this gateway's has the fields it does not know removed first, each one in
 * `ignored` (version.ts).
 */
export function checkConfigData(
  data: unknown,
  env: Env,
  canCoerce: (segments: (string | number)[]) => boolean,
): { ok: true; config: GatewayConfig; ignored: PathProblem[] } | { ok: false; problems: PathProblem[] } {
  const envProblems = isObject(data) ? applyEnvDefaults(data, env) : [];
  const version = declaredVersion(data);
  const ignored = version > CONFIG_VERSION ? dropUnknownFields(data, ignoredFieldMessage(version)) : [];
  const schemaProblems = [...envProblems, ...validateSchema(data, canCoerce)];
  if (schemaProblems.length && version > CONFIG_VERSION) schemaProblems.push({ segments: ['version'], message: newerVersionRefusal(version) });
  if (schemaProblems.length) return { ok: false, problems: schemaProblems };
  const refProblems = checkReferences(data);
  if (refProblems.length) return { ok: false, problems: refProblems };
  return { ok: true, config: normalizeConfig(data as Record<string, unknown>), ignored };
}

/**
 * The load of a file whose plain data (`toJS()` before substitution, no aliases or merge keys) is
 * already at hand: the same substitution, checks and normalisation as `loadConfigText`, without
 * parsing. Null when anything is wrong: only the full load can locate and word the problems. No
 * string is coerced to the number or boolean a field expects (that needs to know which scalars
 * were unquoted), so such a file also gets null and takes the full load.
 */
export function loadConfigData(raw: unknown, env: Env, secrets: Secrets): GatewayConfig | null {
  const interpolated = interpolateData(raw ?? {}, env, secrets);
  if (!interpolated) return null;
  const checked = checkConfigData(interpolated.value, env, () => false);
  return checked.ok ? checked.config : null;
}

/** Gives problems found after a load their positions in the file (read again: a refusal is rare). */
export async function locateInFile(file: string, problems: readonly PathProblem[]): Promise<ConfigProblem[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, keepSourceTokens: true, merge: true });
  return locateProblems(problems, doc, lines, file);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function firstLine(message: string): string {
  // prettyErrors appends a source excerpt after the first line; the position is given separately.
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

// Interpolation problems know their node, not their path: find it by walking the document.
function pathOfNode(doc: ReturnType<typeof parseDocument>, target: Scalar): string {
  const found = doc.contents ? search(doc.contents, []) : null;
  return found ?? '(root)';

  function search(node: unknown, trail: (string | number)[]): string | null {
    if (node === target) return formatPath(trail);
    const items = (node as { items?: unknown[] })?.items;
    if (!Array.isArray(items)) return null;
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as { key?: { value?: unknown }; value?: unknown };
      const isPair = item && typeof item === 'object' && 'key' in item && 'value' in item;
      const hit = isPair ? search(item.value, [...trail, String(item.key?.value ?? item.key)]) : search(item, [...trail, i]);
      if (hit) return hit;
    }
    return null;
  }
}
