/**
 * Per-account security verification: send and check one-time codes (email, SMS, TOTP) and keep the
 * account's security status. All state lives in the StateStore, so instances sharing Redis agree.
 *
 * Keys: `gw:sec:status:<account>` (status), `gw:sec:code:<account>:<type>` (the pending code),
 * `gw:sec:attempts:<codeId>` and `gw:sec:used:<codeId>` (atomic counters: wrong tries, redemption).
 */
import { randomUUID } from 'node:crypto';
import { accountLanguage } from '../i18n/account-language.ts';
import type { Runtime } from '../runtime.ts';
import { conflict, GatewayError, rateLimited } from '../pipeline/errors.ts';
import type { Logger } from '../pipeline/types.ts';
import { codeMatches, hashCode, maskRecipient, newCode, newSalt } from './codes.ts';
import { createDelivery } from './deliver.ts';
import { newTotp, totpStep } from './totp.ts';
import type { CodeType, PendingCode, SecurityState, SecurityStatus, VerificationResult } from './types.ts';

export interface SecurityOptions {
  /** Life of a code (CONTRACT: 10 minutes). */
  codeTtlMs?: number;
  /** Minimum gap between two codes of one type for one account. */
  resendIntervalMs?: number;
  /** Wrong tries that void a code (CONTRACT: 5). */
  maxAttempts?: number;
  /** How long a successful verification counts (the answer's `expires_at`). */
  verifiedForMs?: number;
}

const MINUTE = 60_000;
/** A pending code is kept this long past its expiry, so a late try reads "expired", not "unknown". */
const EXPIRED_GRACE_MS = 24 * 60 * MINUTE;

const codeExpired = (message: string) => new GatewayError(400, 'invalid_request_error', message, { code: 'code_expired', param: 'code' });

const DEFAULT_STATE: SecurityStatus = {
  email_verified: false,
  phone_verified: false,
  two_factor_enabled: false,
  two_factor_method: null,
  login_alerts_enabled: false,
  trusted_devices: [],
};

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
  const delivery = createDelivery(logger);
  const { store } = runtime;

  const statusKey = (account: string) => `gw:sec:status:${account}`;
  const codeKey = (account: string, type: CodeType) => `gw:sec:code:${account}:${type}`;

  async function readState(account: string): Promise<SecurityState> {
    const raw = await store.get(statusKey(account));
    return { ...DEFAULT_STATE, ...(raw ? (JSON.parse(raw) as Partial<SecurityState>) : {}) };
  }

  async function updateState(account: string, change: Partial<SecurityState>): Promise<SecurityState> {
    const next = { ...(await readState(account)), ...change };
    await store.set(statusKey(account), JSON.stringify(next));
    return next;
  }

  async function readCode(account: string, type: CodeType): Promise<PendingCode | null> {
    const raw = await store.get(codeKey(account, type));
    return raw ? (JSON.parse(raw) as PendingCode) : null;
  }

  async function dropCode(account: string, type: CodeType, code: PendingCode | null): Promise<void> {
    await store.del(codeKey(account, type));
    if (code) await Promise.all([store.del(`gw:sec:attempts:${code.id}`), store.del(`gw:sec:used:${code.id}`)]);
  }

  /** Counters exist from the start with the code's lifetime, so Redis expires them with it (INCRBY keeps a TTL). */
  async function armCounters(id: string, ttlMs: number): Promise<void> {
    await Promise.all([store.set(`gw:sec:attempts:${id}`, '0', ttlMs), store.set(`gw:sec:used:${id}`, '0', ttlMs)]);
  }

  const service = {
    /** The clock (ms); replaceable in tests. */
    now: () => Date.now(),

    async status(account: string): Promise<SecurityStatus> {
      const state = await readState(account);
      return {
        email_verified: state.email_verified,
        phone_verified: state.phone_verified,
        two_factor_enabled: state.two_factor_enabled,
        two_factor_method: state.two_factor_method,
        login_alerts_enabled: state.login_alerts_enabled,
        trusted_devices: state.trusted_devices,
      };
    },

    /** Sends (or, for TOTP, starts enrolling) a code; `recipient` is already validated for its type. */
    async sendCode(account: string, type: CodeType, recipient: string, label: string): Promise<SendCodeResult> {
      const now = service.now();
      const previous = await readCode(account, type);
      if (previous && now - previous.sent_at < resendIntervalMs) {
        const wait = (previous.sent_at + resendIntervalMs - now) / 1000;
        throw rateLimited(wait, {}, `A code was sent less than ${resendIntervalMs / 1000} seconds ago. Retry later.`);
      }
      const config = runtime.snapshot.config;
      const expiresAt = now + codeTtlMs;
      const minutes = Math.round(codeTtlMs / MINUTE);
      const id = randomUUID();

      if (type === 'totp') {
        if ((await readState(account)).two_factor_enabled) throw conflict('Two-factor authentication is already enabled.', 'two_factor_enabled');
        const { secret, url } = newTotp(label);
        await dropCode(account, type, previous);
        await store.set(codeKey(account, type), JSON.stringify({ id, type, recipient: label, secret, sent_at: now, expires_at: expiresAt } satisfies PendingCode), codeTtlMs + EXPIRED_GRACE_MS);
        await armCounters(id, codeTtlMs + EXPIRED_GRACE_MS);
        return { success: true, type, otpauth_url: url, secret, expires_at: new Date(expiresAt).toISOString() };
      }

      const code = newCode();
      const salt = newSalt();
      const pending: PendingCode = { id, type, recipient, hash: hashCode(code, salt), salt, sent_at: now, expires_at: expiresAt };
      // Stored before sending: a fast reader of the message must find it. A failed send removes it
      // again, so a delivery outage does not also cost the caller the resend interval.
      await dropCode(account, type, previous);
      await store.set(codeKey(account, type), JSON.stringify(pending), codeTtlMs + EXPIRED_GRACE_MS);
      await armCounters(id, codeTtlMs + EXPIRED_GRACE_MS);
      try {
        const language = await accountLanguage(runtime, account);
        if (type === 'email') await delivery.email(config, recipient, code, minutes, language);
        else await delivery.sms(config, recipient, code, minutes, language);
      } catch (error) {
        await dropCode(account, type, pending);
        throw error;
      }
      return { success: true, type, recipient: maskRecipient(recipient), expires_at: new Date(expiresAt).toISOString() };
    },

    async verify(account: string, type: CodeType, code: string): Promise<VerificationResult> {
      const now = service.now();
      const verified = (): VerificationResult => ({ success: true, verified: true, expires_at: new Date(now + verifiedForMs).toISOString() });
      const wrong: VerificationResult = { success: false, verified: false };

      if (type === 'totp') {
        const state = await readState(account);
        if (state.two_factor_enabled && state.totp_secret) {
          const step = totpStep(state.totp_secret, code, now);
          if (step === null || step <= (state.totp_last_step ?? -1)) return wrong;
          await updateState(account, { totp_last_step: step });
          return verified();
        }
      }

      const pending = await readCode(account, type);
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
        if (tries >= maxAttempts) logger.info('verification code voided', { account, type });
        return wrong;
      }
      // Single use, atomically: of two concurrent correct submissions only the first wins.
      if ((await store.incrBy(`gw:sec:used:${pending.id}`, 1)) > 1) throw codeExpired('The verification code was already used. Request a new one.');
      await dropCode(account, type, pending);

      if (type === 'email') await updateState(account, { email_verified: true, email: pending.recipient });
      else if (type === 'sms') await updateState(account, { phone_verified: true, phone: pending.recipient });
      else await updateState(account, { two_factor_enabled: true, two_factor_method: 'totp', totp_secret: pending.secret, totp_last_step: step ?? undefined });
      return verified();
    },

    close() {
      delivery.close();
    },
  };
  return service;
}

export type SecurityService = ReturnType<typeof createSecurityService>;
