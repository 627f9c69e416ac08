/**
 * A duration in milliseconds from an environment variable (`GATEWAY_DRAIN_TIMEOUT_MS`...):
 * `fallback` when unset or empty; anything but a number >= 0 stops the start with a message
 * naming the variable, rather than a shutdown that never waits or never ends.
 */
export function millisecondsFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`${name} must be a number of milliseconds >= 0, not '${raw}'`);
  return ms;
}
