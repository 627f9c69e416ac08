/**
 * TOTP (RFC 6238) enrolment and checks with otpauth: SHA-1, 6 digits, 30 s, as authenticator apps expect.
 */
import { Secret, TOTP } from 'otpauth';

const PERIOD = 30;

function totp(secret: string, label: string) {
  return new TOTP({ issuer: 'LLM Gateway', label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secret) });
}

/** A fresh secret and its `otpauth://` URL (what the QR code encodes). */
export function newTotp(label: string): { secret: string; url: string } {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, url: totp(secret, label).toString() };
}

/**
 * The time step `token` is valid for at `now` (±1 step for clock drift), or null.
 * Callers refuse a step they already accepted (replay).
 */
export function totpStep(secret: string, token: string, now: number): number | null {
  const delta = totp(secret, 'check').validate({ token, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD) + delta;
}
