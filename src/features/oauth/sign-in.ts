/**
 * The decisions of the sign-in form, apart from its pages (routes/interaction.ts): throttles, the
 * password, the second factor, trusted devices and login alerts.
 *
 * - Failed attempts count against their address (`ADDRESS_LIMIT` in 15 minutes) and their
 *   email (`ACCOUNT_LIMIT`); past either, the form refuses before any hash, so one address cannot try
 *   many emails (each an scrypt) and one email cannot be guessed at. An attempt takes its place
 *   in both counts before its hash, in one atomic step of the store (`admit`), and gives it back
 *   once the password proves right: parallel tries cannot all pass a check made before any of
 *   them failed. A count lives 15 minutes from the first failure it holds.
 * - A device the account trusts skips the second factor only: its attempts count like any other,
 *   so a stolen or copied cookie buys no more password guesses than none. The way past a locked
 *   email is a one-time code mailed to the account (only the address then counts). A cookie holds
 *   for its own account only, and no longer once the password or the second factor changed
 *   (security/devices.ts).
 * - Password hashes are bounded process-wide (auth/hash-gate.ts); a full gate answers 503.
 * - With TOTP on, a new device must give a code of the authenticator, or one of the account's
 *   single-use recovery codes (both attempt-limited together by the security service), before
 *   the sign-in completes.
 */
import type { AccountConfig } from '../../config/types.ts';
import { verifyPassword } from '../../config/password.ts';
import { GatewayError } from '../../kernel/errors.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import type { Snapshot } from '../../config/snapshot.ts';
import type { QuotaRule } from '../../store/types.ts';
import { createDevices, deviceName, trustedDevice } from '../security/devices.ts';
import type { SecurityService } from '../security/service.ts';
import { createSecurityState } from '../security/state.ts';
import type { PageError } from './views.ts';

/** The window the failures are counted in. */
const WINDOW_MS = 15 * 60_000;
/** Failed sign-ins per address per window (any emails). */
export const ADDRESS_LIMIT = 20;
/** Failed sign-ins per email per window, from devices the account does not trust. */
export const ACCOUNT_LIMIT = 10;
/** Addresses remembered per account, so that a login alert fires only for a new one. */
const KNOWN_ADDRESSES = 10;
/** The parameters of `npm run hash-password`, when no account has a hash to copy. */
const DEFAULT_PARAMS = 'ln=17,r=8,p=1';
const decoys = new WeakMap<object, string>();

/**
 * A valid hash of no password, with the cost parameters most accounts' hashes use: an unknown
 * email then costs as much as a wrong password, so the answer's timing tells no one which emails
 * have accounts. Computed once per configuration snapshot.
 */
function decoyHash(snapshot: Snapshot): string {
  let decoy = decoys.get(snapshot);
  if (!decoy) {
    const counts = new Map<string, number>();
    for (const account of snapshot.accounts.values()) {
      const params = /^\$scrypt\$([^$]+)\$/.exec(account.password_hash ?? '')?.[1];
      if (params) counts.set(params, (counts.get(params) ?? 0) + 1);
    }
    const params = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? DEFAULT_PARAMS;
    decoy = `$scrypt$${params}$3pZ5Qm9rY2tVc2VyRGVjb3k$0000000000000000000000000000000000000000000`;
    decoys.set(snapshot, decoy);
  }
  return decoy;
}

/** Who is signing in, from where. */
export interface SignInClient {
  ip: string;
  /** The trusted-device cookie, when the browser has one. */
  deviceCookie?: string;
  userAgent: string | null;
}

export type SignInResult =
  | { kind: 'signed-in'; accountId: string; deviceCookie: string }
  | { kind: 'second-factor'; accountId: string }
  /** `error` names the page's text (src/i18n/oauth-pages.ts), shown in the reader's language. */
  | { kind: 'refused'; status: number; error: PageError; offerCode?: boolean };

const refused = (status: number, error: PageError, offerCode = false): SignInResult => ({ kind: 'refused', status, error, offerCode });

/**
 * A refusal from the services as a page answer: 429 of the TOTP attempt limit, 503 of the hash
 * gate; anything else (2FA turned off meanwhile) starts the sign-in again.
 */
function refusedBy(error: unknown): SignInResult {
  if (!GatewayError.is(error)) throw error;
  if (error.status === 429) return refused(429, 'tooManySecondFactor');
  if (error.status === 503) return refused(503, 'busy');
  return refused(error.status, 'signInAgain');
}

export function createSignIn(runtime: Runtime, security: SecurityService, logger: Logger) {
  const state = createSecurityState(runtime.store);
  const devices = createDevices(state);

  function findAccount(email: string): AccountConfig | undefined {
    const wanted = email.trim().toLowerCase();
    for (const account of runtime.current().accounts.values()) if (account.email.toLowerCase() === wanted) return account;
    return undefined;
  }

  const addressKey = (client: SignInClient) => `gw:oauth:sign-in:failures:address:${client.ip}`;
  const emailKey = (email: string) => `gw:oauth:sign-in:failures:email:${email.trim().toLowerCase()}`;
  const attempt = (key: string, limit: number): QuotaRule => ({ key, limit, reserve: 1, ttlMs: WINDOW_MS });

  /**
   * Takes an attempt in each count, all or none: the key of the first count that is full, or null
   * once the attempt is counted (as a failure until `giveBack`).
   */
  async function take(counts: QuotaRule[]): Promise<string | null> {
    const { allowed, refusedBy } = await runtime.store.admit([], counts);
    return allowed ? null : refusedBy?.kind === 'quota' ? refusedBy.key : counts[0]!.key;
  }

  /** An attempt that did not fail (right password, or no hash computed): out of the counts again. */
  async function giveBack(counts: QuotaRule[]): Promise<void> {
    if (!counts.length) return;
    // A limit of 0 never refuses; the TTL keeps a count that expired meanwhile from living on below 0.
    await runtime.store.admit([], counts.map((count) => ({ ...count, limit: 0, reserve: -1 })));
  }

  const tooManyFromAddress = () => refused(429, 'networkLocked');

  /** A verified sign-in: trust (or refresh) the device, alert on a new device or address. */
  async function complete(account: AccountConfig, client: SignInClient): Promise<SignInResult> {
    const before = await state.read(account.id);
    const device = await devices.remember(account.id, account.password_hash, client.deviceCookie, deviceName(client.userAgent), Date.now());
    const knownAddress = before.known_addresses?.includes(client.ip) ?? false;
    await state.update(account.id, { known_addresses: [client.ip, ...(before.known_addresses ?? []).filter((a) => a !== client.ip)].slice(0, KNOWN_ADDRESSES) });
    if (before.login_alerts_enabled && (!device.known || !knownAddress)) {
      void security.loginAlert(account.id, account.email, {
        newDevice: !device.known,
        at: new Date().toISOString(),
        address: client.ip,
        device: deviceName(client.userAgent),
      });
    }
    logger.info('oauth sign-in', { account: account.id, new_device: !device.known });
    return { kind: 'signed-in', accountId: account.id, deviceCookie: device.cookie };
  }

  return {
    /** The login form: email and password, and the mailed code when the account's throttle is in the way. */
    async withPassword(email: string, password: string, code: string | null, client: SignInClient): Promise<SignInResult> {
      const account = findAccount(email);
      const current = account ? await state.read(account.id) : null;
      // A mailed code is the way past a locked email, so with one only the address counts.
      const counts = [attempt(addressKey(client), ADDRESS_LIMIT), ...(code === null ? [attempt(emailKey(email), ACCOUNT_LIMIT)] : [])];
      const full = await take(counts);
      if (full === addressKey(client)) return tooManyFromAddress();
      if (full) return refused(429, 'accountLocked', true);
      if (code !== null && (!account || !(await security.redeemSignInCode(account.id, code)))) return refused(401, 'wrongSignInCode', true);
      let ok: boolean;
      try {
        ok = await verifyPassword(password, account?.password_hash ?? decoyHash(runtime.current()));
      } catch (error) {
        // No hash computed (the gate was full): not a failure.
        await giveBack(counts);
        return refusedBy(error);
      }
      if (!account || !account.password_hash || !ok) {
        logger.info('oauth login refused', { email });
        return refused(401, 'wrongCredentials');
      }
      await giveBack(counts);
      const trusted = current !== null && trustedDevice(current, client.deviceCookie, account.password_hash) !== null;
      if (current?.two_factor_enabled && !trusted) return { kind: 'second-factor', accountId: account.id };
      return complete(account, client);
    },

    /** The second step with TOTP on: a code of the authenticator, or (`recovery`) a recovery code, spent by its use. */
    async withSecondFactor(accountId: string, code: string, client: SignInClient, recovery = false): Promise<SignInResult> {
      const account = runtime.current().accounts.get(accountId);
      if (!account) return refused(400, 'accountGone');
      try {
        if (recovery) {
          if (!(await security.useRecoveryCode(accountId, code))) return refused(401, 'wrongRecoveryCode');
        } else if (!(await security.checkSecondFactor(accountId, code))) return refused(401, 'wrongSecondFactor');
      } catch (error) {
        return refusedBy(error);
      }
      return complete(account, client);
    },

    /**
     * Mails a sign-in code when the email is an account's. Answers the same, as fast, either way
     * (the mail goes out after the answer), so the form tells nobody which emails have accounts.
     */
    async mailCode(email: string, client: SignInClient): Promise<SignInResult | null> {
      // Each request counts like a failure, so one address cannot mail many accounts.
      if (await take([attempt(addressKey(client), ADDRESS_LIMIT)])) return tooManyFromAddress();
      const account = findAccount(email);
      if (account) {
        security.sendSignInCode(account.id, account.email).catch((error: unknown) => {
          logger.warn('sign-in code not sent', { account: account.id, error: String(error) });
        });
      }
      return null;
    },
  };
}

export type SignIn = ReturnType<typeof createSignIn>;
