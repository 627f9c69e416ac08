/**
 * What management changes may add to gateway.yaml. Every instance holds the whole file in memory
 * (several copies while it reloads) and every write validates all of it, so a file grown through
 * the API slows every writer and can push the process past its memory limit: one member once
 * grew it to 25 MB with 99 keys of 1,000 long model names each. Two bounds, in bytes:
 *
 * - per account, the API keys it owns (`management.max_bytes_per_account`, measured as each key's
 *   JSON with its defaults, so the measure does not depend on how the file is formatted);
 * - for the whole file (`management.max_config_bytes`).
 *
 * A change is refused (409) only when it leaves a bound exceeded *and* grows what that bound
 * measures: after an operator lowers a limit, deleting or shrinking keys still works.
 */
import { conflict } from '../../kernel/errors.ts';
import type { GatewayConfig, KeyConfig } from '../types.ts';
import { idInFile, type ItemEdit } from './item-edits.ts';

/** The bytes the API keys of `account` take, each as its JSON. */
export function accountKeyBytes(keys: readonly KeyConfig[], account: string): number {
  let total = 0;
  for (const key of keys) if (key.account === account) total += Buffer.byteLength(JSON.stringify(key));
  return total;
}

/** The accounts owning a key that `edits` add, change or remove (before or after the change). */
function accountsTouched(before: GatewayConfig, after: GatewayConfig, edits: readonly ItemEdit[]): Set<string> {
  const touched = new Set<string>();
  const keyEdits = edits.filter((edit) => edit.collection === 'keys');
  if (!keyEdits.length) return touched;
  const owners = new Map<string, string[]>();
  for (const key of [...before.keys, ...after.keys]) owners.set(idInFile(key.id), [...(owners.get(idInFile(key.id)) ?? []), key.account]);
  for (const edit of keyEdits) {
    const id = edit.kind === 'append' ? idInFile(String(edit.value.id)) : edit.id;
    for (const account of owners.get(id) ?? []) touched.add(account);
  }
  return touched;
}

/**
 * Throws 409 `account_bytes_limit_reached` or `config_size_limit_reached` when the change from
 * `before` to `after` (the file's text `textBefore` to `textAfter`) grows past a bound in force.
 */
export function assertWriteBounds(before: GatewayConfig, after: GatewayConfig, edits: readonly ItemEdit[], textBefore: string, textAfter: string): void {
  const { max_bytes_per_account: perAccount, max_config_bytes: perFile } = before.management;
  for (const account of accountsTouched(before, after, edits)) {
    const bytes = accountKeyBytes(after.keys, account);
    if (bytes <= perAccount || bytes <= accountKeyBytes(before.keys, account)) continue;
    throw conflict(
      `The API keys of account '${account}' would take ${bytes} bytes of the configuration, above management.max_bytes_per_account (${perAccount}). ` +
        'Delete a key or shorten its lists (permissions.models) first.',
      'account_bytes_limit_reached',
    );
  }
  // A UTF-16 unit takes at most 3 bytes in UTF-8: far below the bound, the text need not be counted.
  if (textAfter.length * 3 <= perFile) return;
  const size = Buffer.byteLength(textAfter);
  if (size > perFile && size > Buffer.byteLength(textBefore)) {
    throw conflict(
      `The configuration file would grow to ${size} bytes, above management.max_config_bytes (${perFile}). Remove unused items first, or raise the limit in gateway.yaml.`,
      'config_size_limit_reached',
    );
  }
}
