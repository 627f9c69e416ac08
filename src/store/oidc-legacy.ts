/**
 * Moves, once per store, what an earlier version kept under OAuth ids in clear (oidc-keys.ts) to
 * the hashed form, so the store holds no live token in clear from the first start of this version
 * on, rather than until the last old one expires (refresh tokens and sessions live 14 days).
 * Entries an older instance still writes during a rolling upgrade are moved on first use instead
 * (oidc-adapter.ts), so instances starting together, or a use meanwhile, are harmless.
 */
import { StoreAdapter } from './oidc-adapter.ts';
import type { StateStore } from './types.ts';

/** Set once the sweep is done on this store (kept on disk with the other `gw:oidc:` values). */
export const LEGACY_MOVED_KEY = 'gw:oidc:LegacyMoved:v1';

/** `gw:oidc:` entries that are no artefact of a model: lookups, indexes, this marker. */
const NOT_ARTEFACTS = new Set(['SessionUid', 'UserCode', 'GrantIndex', 'LegacyMoved']);

/** An artefact key of the earlier form: model and id, the id without the `sha256:` of the new form. */
const LEGACY_ARTEFACT = /^gw:oidc:([A-Za-z]+):([A-Za-z0-9_-]+)$/;

/**
 * Moves every entry in clear, unless done before on this store. Answers how many moved.
 * @example const moved = await moveLegacyOidcEntries(runtime.store);
 */
export async function moveLegacyOidcEntries(store: StateStore): Promise<number> {
  if ((await store.get(LEGACY_MOVED_KEY)) !== null) return 0;
  let moved = 0;
  for (const key of await store.keys('gw:oidc:')) {
    const match = LEGACY_ARTEFACT.exec(key);
    if (!match || NOT_ARTEFACTS.has(match[1]!)) continue;
    if (await new StoreAdapter(match[1]!, store).moveFromClear(match[2]!)) moved++;
  }
  await store.set(LEGACY_MOVED_KEY, new Date().toISOString());
  return moved;
}
