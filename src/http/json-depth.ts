/**
 * How deeply a parsed JSON value nests. JSON.parse takes any depth, but code that walks a body
 * recursively (schema checks, JSON.stringify, structuredClone, YAML rendering) overflows the stack
 * on a body of `[[[[…` thousands deep; bodies are checked here first. Every route checks its body,
 * inference included, so the walk is lazy: depth first, one child at a time, and it answers as
 * soon as a container lies past the limit, never reading below it or beside it.
 */
import { invalidBody } from '../kernel/errors.ts';

/** Nesting a request body may have: far beyond any real resource or tool schema, far below the stack's limit. */
export const MAX_BODY_DEPTH = 64;

/** True when `value` has containers nested more than `max` deep (the top level is depth 1). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  return typeof value === 'object' && value !== null && (max < 1 || deeperBelow(value, max - 1));
}

/**
 * Whether a container lies more than `left` levels below `container`. The recursion goes no
 * deeper than the limit, whatever the body: at most `max` frames.
 */
function deeperBelow(container: object, left: number): boolean {
  if (Array.isArray(container)) {
    for (const child of container) if (typeof child === 'object' && child !== null && (left < 1 || deeperBelow(child, left - 1))) return true;
    return false;
  }
  for (const key in container) {
    const child = (container as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && (left < 1 || deeperBelow(child, left - 1))) return true;
  }
  return false;
}

/**
 * 400 for a body nested past MAX_BODY_DEPTH (the inference routes; the management routes check
 * in server.ts): translating it (JSON.stringify of tools, of the upstream body) would overflow the stack.
 */
export function refuseDeepBody(body: unknown): void {
  if (nestedDeeperThan(body, MAX_BODY_DEPTH)) throw invalidBody(`The request body is nested more than ${MAX_BODY_DEPTH} levels deep.`);
}
