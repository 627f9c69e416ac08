/**
 * A lookup in a constant table by a name that comes from outside (a request, an upstream's
 * answer): own entries only, so `constructor`, `toString` or `__proto__` never find Object's.
 */
export function own<T>(table: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}
