/** Model allow-lists: exact identifiers, `*`, or a trailing-`*` prefix such as `mock/*`. */
export function modelAllowed(model: string, patterns: string[]): boolean {
  if (patterns.length === 0) return true;
  for (const pattern of patterns) {
    if (pattern === model || pattern === '*') return true;
    if (pattern.endsWith('*') && model.startsWith(pattern.slice(0, -1))) return true;
  }
  return false;
}
