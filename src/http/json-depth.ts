/**
 * How deeply a parsed JSON value nests. JSON.parse takes any depth, but code that walks a body
 * recursively (schema checks, structuredClone, YAML rendering) overflows the stack on a body of
 * `[[[[…` thousands deep; bodies are checked here first, without recursion.
 */

/** Nesting a management body may have: far beyond any real resource, far below the stack's limit. */
export const MAX_BODY_DEPTH = 64;

/** True when `value` has containers nested more than `max` deep (the top level is depth 1). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
