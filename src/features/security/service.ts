/**
 * Per-account security verification: send and check one-time codes (email, SMS, TOTP) and keep the
 * account's security status. All state lives in the StateStore, so instances sharing Redis agree.
 *
 * Keys: `gw:sec:status:<account>` (status, state.ts), `gw:sec:code:<account>:<slot>` (the pending
 * code), `gw:sec:attempts:<codeId>` and `gw:sec:used:<codeId>` (atomic counters: wrong tries,
 * redemption), `gw:sec:totp-tries:<account>` (second-factor tries since the last right one, recovery
 * codes included), `gw:sec:recovery-used:<account>:<hash>` (a recovery code spent, recovery-codes.ts).
 */
import { randomUUID } from 'node:crypto';
import { accountLanguage } from '../../i18n/account-language.ts';
import { emailTexts, type LoginAlertFigures } from '../../i18n/emails.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import { codeExpired, conflict, GatewayError, rateLimited } from '../../kernel/errors.ts';
import type { Logger } from '../../pipeline/types.ts';
import { codeMatches, hashCode, maskRecipient, newCode, newSalt } from './codes.ts';
import { createDelivery } from './deliver.ts';
import { newTotp, totpStep } from './totp.ts';
import { createDevices, currentDevices } from './devices.ts';
import { createSecurityState, publicStatus } from './state.ts';
import { createRecoveryCodes } from './recovery-codes.ts';
import type { CodeSlot, CodeType, PendingCode, SecurityState, SecurityStatus, VerificationResult } from './types.ts';

export interface SecurityOptions {
  /** Life of a code (CONTRACT: 10 minutes). */
  codeTtlMs?: number;
  /** Minimum gap between two codes of one type for one account. */
  resendIntervalMs?: number;
  /** Wrong tries that void a code (CONTRACT: 5). */
  maxAttempts?: number;
  /** How long a successful verification counts (the answer's `expires_at`). */
  verifiedForMs?: number;
  /** Window in which `maxAttempts` second-factor tries (without a right one) lock TOTP checks. */
  totpLockMs?: number;
}

const MINUTE = 60_000;
/** A pending code is kept this long past its expiry, so a late try reads "expired", not "unknown". */
const EXPIRED_GRACE_MS = 24 * 60 * MINUTE;

export interface SendCodeResult {
  success: true;
  type: CodeType;
  recipient?: string;
  expires_at: string;
  otpauth_url?: string;
  secret?: string;
}

/**
 * Creates the service behind /v1/security/*. `now` is a property so tests can move the clock.
 * @example const security = createSecurityService(runtime, logger); await security.status('alice');
 */
export function createSecurityService(runtime: Runtime, logger: Logger, options: SecurityOptions = {}) {
  const codeTtlMs = options.codeTtlMs ?? 10 * MINUTE;
  const resendIntervalMs = options.resendIntervalMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 5;
  const verifiedForMs = options.verifiedForMs ?? 10 * MINUTE;
  const totpLockMs = options.totpLockMs ?? 15 * MINUTE;
  const delivery = createDelivery(logger);
  const { store } = runtime;

  const state = createSecurityState(store);
  const devices = createDevices(state);
  const recoveryCodes = createRecoveryCodes(store, state);
  const readState = state.read;
  const updateState = state.update;
  const codeKey = (account: string, slot: CodeSlot) => `gw:sec:code:${account}:${slot}`;
  const totpTriesKey = (account: string) => `gw:sec:totp-tries:${account}`;
  /** The status shows only the devices that still hold (a changed password or second factor voids them). */
  const visible = async (account: string, current: SecurityState) =>
    publicStatus(
      { ...current, trusted_devices: currentDevices(current, runtime.current().accounts.get(account)?.password_hash) },
      await recoveryCodes.remaining(account, current.recovery_codes),
    );

  /** Before a second-factor check: one more try in the lock's window (429 once `maxAttempts` went wrong). */
  async function secondFactorTry(account: string): Promise<void> {
    const tries = await store.admit([{ key: totpTriesKey(account), limit: maxAttempts, windowMs: totpLockMs }], []);
    if (!tries.allowed) throw rateLimited(tries.rates[0]!.resetMs / 1000, {}, 'Too many wrong two-factor codes. Wait and try again.');
  }

  /** Two-factor off: the secret forgotten and the recovery codes with it. */
  async function turnOff(account: string): Promise<SecurityState> {
    await recoveryCodes.clear(account);
    return updateState(account, { two_factor_enabled: false, two_factor_method: null, totp_secret: undefined, totp_last_step: undefined });
  }

  async function readCode(account: string, type: CodeSlot): Promise<PendingCode | null> {
    const raw = await store.get(codeKey(account, type));
    return raw ? (JSON.parse(raw) as PendingCode) : null;
  }

  async function dropCode(account: string, type: CodeSlot, code: PendingCode | null): Promise<void> {
    await store.del(codeKey(account, type));
    if (code) await Promise.all([store.del(`gw:sec:attempts:${code.id}`), store.del(`gw:sec:used:${code.id}`)]);
  }

  /** Counters exist from the start with the code's lifetime, so Redis expires them with it (INCRBY keeps a TTL). */
  async function armCounters(id: string, ttlMs: number): Promise<void> {
    await Promise.all([store.set(`gw:sec:attempts:${id}`, '0', ttlMs), store.set(`gw:sec:used:${id}`, '0', ttlMs)]);
  }

  function resendWait(previous: PendingCode | null, now: number): void {
    if (previous && now - previous.sent_at < resendIntervalMs) {
      const wait = (previous.sent_at + resendIntervalMs - now) / 1000;
      throw rateLimited(wait, {}, `A code was sent less than ${resendIntervalMs / 1000} seconds ago. Retry later.`);
    }
  }

  /**
   * Stores a new 6-digit code for `slot` and delivers it. Stored before sending: a fast reader of
   * the message must find it. A failed send removes it again, so a delivery outage does not also
   * cost the caller the resend interval.
   */
  async function sendOneTimeCode(account: string, slot: CodeSlot, recipient: string, now: number, deliver: (code: string, minutes: number) => Promise<void>) {
    const previous = await readCode(account, slot);
    resendWait(previous, now);
    const code = newCode();
    const salt = newSalt();
    const pending: PendingCode = { id: randomUUID(), type: slot, recipient, hash: hashCode(code, salt), salt, sent_at: now, expires_at: now + codeTtlMs };
    await dropCode(account, slot, previous);
    await store.set(codeKey(account, slot), JSON.stringify(pending), codeTtlMs + EXPIRED_GRACE_MS);
    await armCounters(pending.id, codeTtlMs + EXPIRED_GRACE_MS);
    try {
      await deliver(code, Math.round(codeTtlMs / MINUTE));
    } catch (error) {
      await dropCode(account, slot, pending);
      throw error;
    }
    return pending;
  }

  /**
   * Redeems the pending code of `slot`: the code (and for TOTP enrolment its time step) when it
   * matches, null when it is wrong; throws `code_expired` when none is pending, it expired, was
   * voided (CONTRACT: 5 wrong tries) or was already used.
   */
  async function redeem(account: string, slot: CodeSlot, code: string, now: number): Promise<{ pending: PendingCode; step: number | null } | null> {
    const pending = await readCode(account, slot);
    if (!pending) throw codeExpired('No verification code is pending for this type. Request one with POST /v1/security/send-code.');
    if (now > pending.expires_at) throw codeExpired('The verification code has expired. Request a new one.');
    const attemptsKey = `gw:sec:attempts:${pending.id}`;
    const [attempts] = await store.getCounters([attemptsKey]);
    if (attempts >= maxAttempts) throw codeExpired('The verification code was voided after too many wrong tries. Request a new one.');

    const step = pending.secret ? totpStep(pending.secret, code, now) : null;
    const matches = pending.secret ? step !== null : codeMatches(code, pending.salt!, pending.hash!);
    if (!matches) {
      // Counted atomically: parallel guesses cannot exceed the allowance.
      const tries = await store.incrBy(attemptsKey, 1);
      if (tries >= maxAttempts) logger.info('verification code voided', { account, slot });
      return null;
    }
    // Single use, atomically: of two concurrent correct submissions only the first wins.
    if ((await store.incrBy(`gw:sec:used:${pending.id}`, 1)) > 1) throw codeExpired('The verification code was already used. Request a new one.');
    await dropCode(account, slot, pending);
    return { pending, step };
  }

  const service = {
    /** The clock (ms); replaceable in tests. */
    now: () => Date.now(),

    async status(account: string): Promise<SecurityStatus> {
      return visible(account, await readState(account));
    },

    /** Sends (or, for TOTP, starts enrolling) a code; `recipient` is already validated for its type. */
    async sendCode(account: string, type: CodeType, recipient: string, label: string): Promise<SendCodeResult> {
      const now = service.now();
      const config = runtime.current().config;
      if (type !== 'totp') {
        const language = await accountLanguage(runtime, account);
        const pending = await sendOneTimeCode(account, type, recipient, now, (code, minutes) =>
          type === 'email' ? delivery.email(config, recipient, code, minutes, language) : delivery.sms(config, recipient, code, minutes, language));
        return { success: true, type, recipient: maskRecipient(recipient), expires_at: new Date(pending.expires_at).toISOString() };
      }
      const previous = await readCode(account, type);
      resendWait(previous, now);
      if ((await readState(account)).two_factor_enabled) throw conflict('Two-factor authentication is already enabled.', 'two_factor_enabled');
      const { secret, url } = newTotp(label);
      const id = randomUUID();
      const expiresAt = now + codeTtlMs;
      await dropCode(account, type, previous);
      await store.set(codeKey(account, type), JSON.stringify({ id, type, recipient: label, secret, sent_at: now, expires_at: expiresAt } satisfies PendingCode), codeTtlMs + EXPIRED_GRACE_MS);
      await armCounters(id, codeTtlMs + EXPIRED_GRACE_MS);
      return { success: true, type, otpauth_url: url, secret, expires_at: new Date(expiresAt).toISOString() };
    },

    async verify(account: string, type: CodeType, code: string): Promise<VerificationResult> {
      const now = service.now();
      const verified = (): VerificationResult => ({ success: true, verified: true, expires_at: new Date(now + verifiedForMs).toISOString() });
      const wrong: VerificationResult = { success: false, verified: false };

      if (type === 'totp' && (await readState(account)).two_factor_enabled) {
        return (await service.checkSecondFactor(account, code)) ? verified() : wrong;
      }
      const redeemed = await redeem(account, type, code, now);
      if (!redeemed) return wrong;
      const { pending, step } = redeemed;
      if (type === 'email') await updateState(account, { email_verified: true, email: pending.recipient });
      else if (type === 'sms') await updateState(account, { phone_verified: true, phone: pending.recipient });
      else await updateState(account, { two_factor_enabled: true, two_factor_method: 'totp', totp_secret: pending.secret, totp_last_step: step ?? undefined });
      return verified();
    },

    /**
     * Checks a code of the enrolled authenticator (never the same time step twice). Like the other
     * codes, `maxAttempts` tries without a right one lock the check (429 with Retry-After) until
     * the oldest try leaves the window; a right code starts the count again. Throws 409 when 2FA is off.
     */
    async checkSecondFactor(account: string, code: string): Promise<boolean> {
      const now = service.now();
      await secondFactorTry(account);
      const current = await readState(account);
      if (!current.two_factor_enabled || !current.totp_secret) throw conflict('Two-factor authentication is not enabled.', 'two_factor_disabled');
      const step = totpStep(current.totp_secret, code, now);
      if (step === null || step <= (current.totp_last_step ?? -1)) return false;
      await Promise.all([updateState(account, { totp_last_step: step }), store.del(totpTriesKey(account))]);
      return true;
    },

    /** Turns two-factor authentication off, given a current code of the authenticator. */
    async disableTwoFactor(account: string, code: string): Promise<boolean> {
      if (!(await service.checkSecondFactor(account, code))) return false;
      await turnOff(account);
      return true;
    },

    /**
     * A new set of recovery codes (the old one void), in clear for this answer only. Only with
     * two-factor on: they stand in for its code (409 `two_factor_disabled` otherwise).
     */
    async generateRecoveryCodes(account: string): Promise<{ object: 'recovery_codes'; codes: string[]; created_at: string }> {
      if (!(await readState(account)).two_factor_enabled) throw conflict('Turn two-factor authentication on before generating recovery codes.', 'two_factor_disabled');
      const codes = await recoveryCodes.generate(account);
      logger.info('recovery codes generated', { account });
      return { object: 'recovery_codes', codes, created_at: new Date(service.now()).toISOString() };
    },

    /**
     * A recovery code in place of the authenticator's at sign-in: spent on success (never accepted
     * again). Counts against the same lock as the authenticator codes; 409 when 2FA is off.
     */
    async useRecoveryCode(account: string, code: string): Promise<boolean> {
      await secondFactorTry(account);
      const current = await readState(account);
      if (!current.two_factor_enabled) throw conflict('Two-factor authentication is not enabled.', 'two_factor_disabled');
      if (!(await recoveryCodes.redeem(account, code))) return false;
      await store.del(totpTriesKey(account));
      logger.info('recovery code used', { account, remaining: await recoveryCodes.remaining(account, current.recovery_codes) });
      return true;
    },

    /**
     * An admin's way back in for a member who lost their authenticator: two-factor off without a
     * code (the enrolled secret forgotten, a pending lock lifted). The route logs who did it.
     */
    async resetTwoFactor(account: string): Promise<SecurityStatus> {
      await store.del(totpTriesKey(account));
      return publicStatus(await turnOff(account));
    },

    /** Forgets a trusted device: its next sign-in is a new device again (404 when unknown). */
    async revokeDevice(account: string, id: string): Promise<SecurityStatus> {
      await devices.revoke(account, id);
      return service.status(account);
    },

    async setLoginAlerts(account: string, enabled: boolean): Promise<SecurityStatus> {
      return visible(account, await updateState(account, { login_alerts_enabled: enabled }));
    },

    /** Mails a one-time sign-in code (the way through a locked sign-in form), in the account's language. */
    async sendSignInCode(account: string, email: string): Promise<void> {
      const config = runtime.current().config;
      const texts = emailTexts(await accountLanguage(runtime, account));
      await sendOneTimeCode(account, 'sign-in', email, service.now(), (code, minutes) =>
        delivery.mail(config, email, texts.signInCodeSubject, texts.signInCodeText(code, minutes)));
    },

    /** True when `code` is the pending sign-in code (single use, 5 wrong tries void it); false otherwise. */
    async redeemSignInCode(account: string, code: string): Promise<boolean> {
      try {
        return (await redeem(account, 'sign-in', code, service.now())) !== null;
      } catch (error) {
        if (GatewayError.is(error)) return false;
        throw error;
      }
    },

    /** Mails a login alert to the account's address, in its language; failures are logged, never thrown. */
    async loginAlert(account: string, email: string, figures: LoginAlertFigures): Promise<void> {
      try {
        const texts = emailTexts(await accountLanguage(runtime, account));
        await delivery.mail(runtime.current().config, email, texts.loginAlertSubject, texts.loginAlertText(figures));
      } catch (error) {
        logger.warn('security notification not sent', { error: String(error) });
      }
    },

    close() {
      delivery.close();
    },
  };
  return service;
}

export type SecurityService = ReturnType<typeof createSecurityService>;
