/**
 * An account id is given once. Much is keyed by it outside gateway.yaml: the call log (request
 * bodies included), settings, security state (2FA secret, trusted devices) and OAuth grants. A
 * new account that got a deleted one's id would inherit all of it, and the users API and SSO
 * both derive ids from names (`dave`, the email's local part), so it would happen by itself.
 *
 * An id counts as used when an account has it now, when a deleted account had it (a tombstone
 * `gw:retired:account:<id>` in the state store, written before the account leaves the file and
 * kept forever, or at the reload that finds it gone from a hand-edited file), when stored
 * settings or security state name it (an account removed by hand while the gateway was down),
 * or when call-log rows name it (accounts deleted before tombstones existed).
 * Generated ids skip used ones (`dave-2`); an explicit retired id is 409 `account_id_retired`.
 */
import { conflict } from '../../kernel/errors.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import type { StateStore } from '../../store/types.ts';
import type { Snapshot } from '../../config/snapshot.ts';
import type { LogService } from '../logs/service.ts';
import type { LogStore } from '../logs/types.ts';
import { uniqueSlug } from './crud.ts';
import { settingsKey } from '../settings/service.ts';
import { statusKey } from '../security/state.ts';

/** The tombstone of a deleted account's id (the `gw:retired:` prefix is kept on disk by the embedded store). */
export const retiredAccountKey = (id: string) => `gw:retired:account:${id}`;

/** The call log's store, when the log feature runs (its service is the log step's sink). */
function callLog(runtime: Runtime): LogStore | undefined {
  return (runtime.services.logs as Partial<LogService> | undefined)?.store;
}

/** Records that `id` belonged to an account, before that account is removed: no expiry. */
export async function retireAccountId(store: StateStore, id: string, now = new Date()): Promise<void> {
  await store.set(retiredAccountKey(id), now.toISOString());
}

/**
 * Retires the ids of the accounts a reload found gone (gateway.yaml edited by hand or by GitOps):
 * the management API retires before it writes, a hand edit only shows at the reload.
 */
export async function retireRemovedAccounts(store: StateStore, before: Snapshot, after: Snapshot): Promise<string[]> {
  const removed = [...before.accounts.keys()].filter((id) => !after.accounts.has(id));
  await Promise.all(removed.map((id) => retireAccountId(store, id)));
  return removed;
}

/** Whether a deleted account had `id` (tombstone, state left under it, or rows in the call log). */
export async function wasAccountId(runtime: Runtime, id: string): Promise<boolean> {
  for (const key of [retiredAccountKey(id), settingsKey(id), statusKey(id)]) {
    if ((await runtime.store.get(key)) !== null) return true;
  }
  const log = callLog(runtime);
  return log ? (await log.list({ account_id: id }, 1, 1)).total > 0 : false;
}

/**
 * The id of a new account: `requested` when given and never used, else a slug of `name` no
 * account has or had. `current` tells the ids accounts have now (run inside the config change, so
 * no other change comes between the check and the write).
 */
export async function newAccountId(runtime: Runtime, requested: string | undefined, name: string, current: (id: string) => boolean): Promise<string> {
  if (requested !== undefined) {
    if (await wasAccountId(runtime, requested)) {
      throw conflict(`The id '${requested}' belonged to a deleted account and is never given to another one. Choose another id.`, 'account_id_retired');
    }
    return requested;
  }
  const used = new Set<string>();
  for (;;) {
    const id = uniqueSlug(name, (candidate) => current(candidate) || used.has(candidate), 'user');
    if (!(await wasAccountId(runtime, id))) return id;
    used.add(id);
  }
}
