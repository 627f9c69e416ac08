/**
 * Log ids double as request ids: `log_` + 10 Crockford base32 characters of the millisecond
 * time + 16 random ones (ULID layout), so ids sort roughly by time and never collide in practice.
 */
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A new `log_<ulid>` id for a call made at `now` (ms). */
export function createLogId(now: number = Date.now()): string {
  let time = '';
  let t = Math.max(0, Math.floor(now));
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let rand = '';
  for (const b of bytes) rand += ALPHABET[b & 31];
  return `log_${time}${rand}`;
}
