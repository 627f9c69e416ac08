/**
 * The stored security state of an account (`gw:sec:status:<account>`), read and changed whole.
 * Shared by the verification service, the trusted devices and the sign-in flow.
 */
import type { StateStore } from '../../store/types.ts';
import type { SecurityState, SecurityStatus } from './types.ts';

const DEFAULT_STATE: Omit<SecurityStatus, 'recovery_codes_remaining'> = {
  email_verified: false,
  phone_verified: false,
  two_factor_enabled: false,
  two_factor_method: null,
  login_alerts_enabled: false,
  trusted_devices: [],
};

export const statusKey = (account: string) => `gw:sec:status:${account}`;

export function createSecurityState(store: StateStore) {
  async function read(account: string): Promise<SecurityState> {
    const raw = await store.get(statusKey(account));
    return { ...DEFAULT_STATE, ...(raw ? (JSON.parse(raw) as Partial<SecurityState>) : {}) };
  }
  return {
    read,
    async update(account: string, change: Partial<SecurityState>): Promise<SecurityState> {
      const next = { ...(await read(account)), ...change };
      await store.set(statusKey(account), JSON.stringify(next));
      return next;
    },
  };
}

/** What GET /v1/security/status shows of the state (never the secrets behind it); `recoveryCodes`: how many are unspent. */
export function publicStatus(state: SecurityState, recoveryCodes = 0): SecurityStatus {
  return {
    email_verified: state.email_verified,
    phone_verified: state.phone_verified,
    two_factor_enabled: state.two_factor_enabled,
    two_factor_method: state.two_factor_method,
    login_alerts_enabled: state.login_alerts_enabled,
    trusted_devices: state.trusted_devices.map(({ id, name, last_used }) => ({ id, name, last_used })),
    recovery_codes_remaining: recoveryCodes,
  };
}

export type SecurityStateStore = ReturnType<typeof createSecurityState>;
