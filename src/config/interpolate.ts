/**
 * `${VAR}` / `${VAR:-default}` substitution in gateway.yaml string values. Runs on the parsed
 * YAML document (not the text) so that every problem keeps the position of its scalar, and so that
 * a substituted value can never inject YAML structure.
 */
import { isScalar, visit, type Document, type Node, type Scalar, type visitor } from 'yaml';

export type Env = Record<string, string | undefined>;

/** A reference that could not be resolved; `node` is the scalar that holds it. */
export interface InterpolationProblem {
  node: Scalar;
  message: string;
}

export interface InterpolationResult {
  problems: InterpolationProblem[];
  /**
   * Plain (unquoted) scalars whose value came wholly or partly from the environment. Only these may
   * later be coerced to a number or boolean when the schema asks for one (`port: ${PORT}`).
   */
  plain: Set<Scalar>;
}

// `$${` is the escape for a literal `${`. Names follow POSIX shell rules.
const REF = /\$\$\{|\$\{([^}]*)\}?/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Substitutes references in one string.
 * - `${VAR}`: the variable; unset is an error.
 * - `${VAR:-default}`: the default when the variable is unset or empty (as in sh).
 * - `${secret:NAME}`: the entry NAME of the secrets file beside gateway.yaml (see secrets.ts).
 * - `$${`: a literal `${`.
 * @returns the new value, or `error` describing the first bad reference.
 * @example interpolateString('${HOST:-localhost}:80', {}) // { value: 'localhost:80' }
 */
export function interpolateString(input: string, env: Env, secrets?: Record<string, string>): { value: string; changed: boolean; error?: string } {
  if (!input.includes('${')) return { value: input, changed: false };
  let error: string | undefined;
  const value = input.replace(REF, (match: string, body: string | undefined) => {
    if (match === '$${') return '${';
    if (!match.endsWith('}')) {
      error ??= `has an unterminated \${ reference: ${JSON.stringify(match)}`;
      return match;
    }
    if (body!.startsWith('secret:')) {
      const secretName = body!.slice('secret:'.length);
      const secret = secrets?.[secretName];
      if (secret === undefined) error ??= `references secret ${JSON.stringify(secretName)}, which is not in the secrets file beside the config`;
      return secret ?? match;
    }
    const sep = body!.indexOf(':-');
    const name = sep === -1 ? body! : body!.slice(0, sep);
    if (!NAME.test(name)) {
      error ??= `has an invalid variable reference \${${body}} (expected \${NAME} or \${NAME:-default})`;
      return match;
    }
    const found = env[name];
    if (sep !== -1) return found === undefined || found === '' ? body!.slice(sep + 2) : found;
    if (found === undefined) {
      error ??= `references environment variable ${name}, which is not set (use \${${name}:-default} for a fallback)`;
      return match;
    }
    return found;
  });
  return { value, changed: true, error };
}

/**
 * Substitutes references in every string scalar value of `doc`, in place. Map keys are left alone:
 * they are field names, and interpolating them would defeat unknown-field checks.
 */
export function interpolateDocument(doc: Document, env: Env, secrets?: Record<string, string>): InterpolationResult {
  const problems: InterpolationProblem[] = [];
  const plain = new Set<Scalar>();
  const visitor: visitor = {
    Pair(_key, pair) {
      // Only the value side of a pair; the key is a field name.
      if (isScalar(pair.value)) substitute(pair.value);
      else if (pair.value) visit(pair.value as Node, visitor);
      return visit.SKIP;
    },
    Scalar(_key, node) {
      substitute(node);
    },
  };
  visit(doc, visitor);
  return { problems, plain };

  function substitute(node: Scalar): void {
    if (typeof node.value !== 'string') return;
    const result = interpolateString(node.value, env, secrets);
    if (result.error) problems.push({ node, message: result.error });
    else if (result.changed) {
      node.value = result.value;
      if (node.type === 'PLAIN') plain.add(node);
    }
  }
}

/**
 * The plain-data twin of `interpolateDocument` + `toJS()`: a fresh copy of `raw` (the `toJS()` of
 * an un-interpolated document) with every string value substituted and map keys left alone. Null
 * on the first bad reference; the caller then runs the full load, which locates and words it.
 */
export function interpolateData(raw: unknown, env: Env, secrets?: Record<string, string>): { value: unknown } | null {
  let failed = false;
  const value = copy(raw);
  return failed ? null : { value };

  function copy(item: unknown): unknown {
    if (failed) return undefined;
    if (typeof item === 'string') {
      const result = interpolateString(item, env, secrets);
      if (result.error) failed = true;
      return result.value;
    }
    if (Array.isArray(item)) return item.map(copy);
    if (typeof item === 'object' && item !== null) {
      const out: Record<string, unknown> = {};
      // defineProperty: a `__proto__` key is data (as toJS() makes it), not the prototype.
      for (const [key, child] of Object.entries(item)) Object.defineProperty(out, key, { value: copy(child), writable: true, enumerable: true, configurable: true });
      return out;
    }
    return item;
  }
}
