/**
 * gateway.yaml's format version and its compatibility rule (README: Upgrades and rollbacks).
 *
 * A gateway reads configs of its own version and older strictly: a field it does not know is a
 * typo and refused. A config of a NEWER version was written for a later release: the fields this
 * gateway does not know are ignored, one warning each, and everything it does know is checked as
 * usual. So a pod of the previous release that restarts during a rollout (or comes back with
 * `kubectl rollout undo`) while the ConfigMap already holds the new release's file still starts,
 * instead of crash-looping. A release bumps CONFIG_VERSION when it adds fields; a release never
 * changes what an existing field means (that would be a new field), so ignoring is the only
 * difference an older gateway makes.
 */

/** The newest config version this gateway reads; a file without `version:` is of this version. */
export const CONFIG_VERSION = 1;

/** The version a config's data declares, or CONFIG_VERSION when it declares none (or no integer: the schema refuses that). */
export function declaredVersion(data: unknown): number {
  const v = (data as { version?: unknown } | null)?.version;
  return Number.isInteger(v) ? (v as number) : CONFIG_VERSION;
}

/** The warning for a field ignored in a newer config. */
export function ignoredFieldMessage(version: number): string {
  return `is not known to this gateway (config version ${CONFIG_VERSION}): ignored, as the file is written for version ${version}`;
}

/** Said once, at `version`, when a newer config still fails on a field this gateway does know. */
export function newerVersionRefusal(version: number): string {
  return `is ${version}, newer than this gateway's ${CONFIG_VERSION}: its unknown fields were ignored, but the problems listed are in fields this version knows`;
}
