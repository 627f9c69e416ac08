/**
 * Recovery codes: the way past the second factor when the authenticator is lost. Ten random codes
 * (two groups of five characters joined by a dash), shown once when generated; the account keeps only their `sha256:<hex>` (as API
 * keys are kept: long random strings, not passwords). Generating again replaces the whole set.
 *
 * Each code is single use, atomically: its hash's counter `gw:sec:recovery-used:<account>:<hash>`
 * is incremented on use and only the use that takes it to 1 counts, so two sign-ins racing with one
 * code cannot both pass. The set's hashes stay in the state until replaced (the counters say which
 * are spent), so no read-modify-write of the state can bring a spent code back.
 */
import { randomInt } from 'node:crypto';
import { hashApiKey } from '../../config/keys.ts';
import type { StateStore } from '../../store/types.ts';
import type { SecurityStateStore } from './state.ts';

export const RECOVERY_CODE_COUNT = 10;
/** No 0/o, 1/l/i: a code copied from paper reads one way only. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const HALF = 5;

/** One code: two groups of 5 (about 49 bits). */
export function newRecoveryCode(): string {
  let text = '';
  for (let i = 0; i < HALF * 2; i++) text += ALPHABET[randomInt(ALPHABET.length)];
  return `${text.slice(0, HALF)}-${text.slice(HALF)}`;
}

/** As typed: any case, spaces and dashes ignored. Null when it cannot be a code (no hash spent on it). */
export function normalizeRecoveryCode(input: string): string | null {
  const text = input.toLowerCase().replace(/[\s-]/g, '');
  return text.length === HALF * 2 && [...text].every((c) => ALPHABET.includes(c)) ? text : null;
}

export const hashRecoveryCode = (normalized: string) => hashApiKey(normalized);

export function createRecoveryCodes(store: StateStore, state: SecurityStateStore) {
  const usedKey = (account: string, hash: string) => `gw:sec:recovery-used:${account}:${hash}`;
  const forget = (account: string, hashes: string[] | undefined) => Promise.all((hashes ?? []).map((hash) => store.del(usedKey(account, hash))));

  return {
    /** A new set for `account`, replacing the old one; the codes in clear, for the one answer that shows them. */
    async generate(account: string): Promise<string[]> {
      const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
      const previous = (await state.read(account)).recovery_codes;
      await state.update(account, { recovery_codes: codes.map((code) => hashRecoveryCode(normalizeRecoveryCode(code)!)) });
      await forget(account, previous);
      return codes;
    },

    /** How many codes of the set in `hashes` are not spent yet. */
    async remaining(account: string, hashes: string[] | undefined): Promise<number> {
      if (!hashes?.length) return 0;
      const used = await store.getCounters(hashes.map((hash) => usedKey(account, hash)));
      return used.filter((count) => count === 0).length;
    },

    /** True when `input` is an unspent code of the account's set, which it then spends. */
    async redeem(account: string, input: string): Promise<boolean> {
      const normalized = normalizeRecoveryCode(input);
      if (!normalized) return false;
      const hash = hashRecoveryCode(normalized);
      if (!(await state.read(account)).recovery_codes?.includes(hash)) return false;
      return (await store.incrBy(usedKey(account, hash), 1)) === 1;
    },

    /** The set gone with the second factor it backs up (turned off, reset by an admin). */
    async clear(account: string): Promise<void> {
      const previous = (await state.read(account)).recovery_codes;
      if (!previous?.length) return;
      await state.update(account, { recovery_codes: undefined });
      await forget(account, previous);
    },
  };
}

export type RecoveryCodes = ReturnType<typeof createRecoveryCodes>;
