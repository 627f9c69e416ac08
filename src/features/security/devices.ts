/**
 * Trusted devices: a browser that completed a verified sign-in (password, and the second factor
 * when it is on) gets a cookie `<id>.<secret>`; the account keeps the device's id, a name and the
 * last use (shown in the security status) and a SHA-256 of the secret (never the secret). A
 * trusted device skips the second factor and signs in without a login alert; it does not pass the
 * sign-in throttles (a stolen cookie must not buy unlimited password guesses). Revoking removes it
 * from the account; the cookie then means nothing.
 *
 * A cookie proves a device of one account only: the secrets are kept per account, so a cookie made
 * for one account is nobody to another. The devices hold only while the credentials they were
 * trusted under do: the account keeps a stamp of its password hash and second factor
 * (`devices_stamp`), and a change of either (a new password by the API or by hand in
 * gateway.yaml, two-factor turned on, off or enrolled again) leaves every device untrusted.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { notFound } from '../../kernel/errors.ts';
import type { SecurityStateStore } from './state.ts';
import type { SecurityState, TrustedDevice } from './types.ts';

/** Devices kept per account; the least recently used goes first. */
const MAX_DEVICES = 20;
const NAME_LIMIT = 120;

const digest = (secret: string) => createHash('sha256').update(secret).digest();

/**
 * The credentials the devices of `state` are trusted under, as a digest: the account's password
 * hash (from gateway.yaml, `undefined` without one) and the secret of its second factor when on.
 */
export function credentialStamp(state: SecurityState, passwordHash: string | undefined): string {
  const secondFactor = state.two_factor_enabled ? (state.totp_secret ?? '') : '';
  return createHash('sha256').update(`gw-trusted-devices\n${passwordHash ?? ''}\n${secondFactor}`).digest('hex');
}

/** The devices of `state` that still hold: none once the credentials changed since they were trusted. */
export function currentDevices(state: SecurityState, passwordHash: string | undefined): TrustedDevice[] {
  return state.devices_stamp === credentialStamp(state, passwordHash) ? state.trusted_devices : [];
}

/** A readable name from the User-Agent: the product tokens, shortened. */
export function deviceName(userAgent: string | null): string {
  const name = (userAgent ?? '').replace(/[^\x20-\x7e]/g, '').trim();
  return name ? name.slice(0, NAME_LIMIT) : 'Unknown device';
}

function parseCookie(value: string | undefined): { id: string; secret: string } | null {
  const match = /^([A-Za-z0-9_-]{8,64})\.([A-Za-z0-9_-]{20,128})$/.exec(value ?? '');
  return match ? { id: match[1]!, secret: match[2]! } : null;
}

/** The trusted device of `state` that `cookie` proves, or null (also when the credentials changed since). */
export function trustedDevice(state: SecurityState, cookie: string | undefined, passwordHash: string | undefined): TrustedDevice | null {
  if (state.devices_stamp !== credentialStamp(state, passwordHash)) return null;
  const parsed = parseCookie(cookie);
  const stored = parsed ? state.device_secrets?.[parsed.id] : undefined;
  if (!parsed || !stored) return null;
  const expected = Buffer.from(stored, 'hex');
  const actual = digest(parsed.secret);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
  return state.trusted_devices.find((d) => d.id === parsed.id) ?? null;
}

export function createDevices(state: SecurityStateStore) {
  return {
    /**
     * Records a verified sign-in from this browser: refreshes a known device, or trusts a new one.
     * Returns the cookie to set (the same one for a known device). Devices trusted under other
     * credentials are dropped here: this sign-in proved the current ones.
     */
    async remember(account: string, passwordHash: string | undefined, cookie: string | undefined, name: string, now: number): Promise<{ cookie: string; known: boolean }> {
      const current = await state.read(account);
      const lastUsed = new Date(now).toISOString();
      const known = trustedDevice(current, cookie, passwordHash);
      if (known && cookie) {
        await state.update(account, { trusted_devices: current.trusted_devices.map((d) => (d.id === known.id ? { ...d, last_used: lastUsed } : d)) });
        return { cookie, known: true };
      }
      const id = randomBytes(12).toString('base64url');
      const secret = randomBytes(32).toString('base64url');
      const devices = [...currentDevices(current, passwordHash), { id, name, last_used: lastUsed }]
        .sort((a, b) => b.last_used.localeCompare(a.last_used))
        .slice(0, MAX_DEVICES);
      const secrets = Object.fromEntries(devices.map((d) => [d.id, d.id === id ? digest(secret).toString('hex') : current.device_secrets?.[d.id] ?? '']));
      await state.update(account, { trusted_devices: devices, device_secrets: secrets, devices_stamp: credentialStamp(current, passwordHash) });
      return { cookie: `${id}.${secret}`, known: false };
    },

    /** Forgets a device (404 when the account has none with that id). */
    async revoke(account: string, id: string): Promise<void> {
      const current = await state.read(account);
      if (!current.trusted_devices.some((d) => d.id === id)) throw notFound(`No trusted device with id '${id}'.`, 'device_not_found');
      const secrets = { ...current.device_secrets };
      delete secrets[id];
      await state.update(account, { trusted_devices: current.trusted_devices.filter((d) => d.id !== id), device_secrets: secrets });
    },
  };
}

export type Devices = ReturnType<typeof createDevices>;
