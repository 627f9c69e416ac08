/**
 * Request ids, which are also the call log's primary key: `req_` + 32 hex digits, the first 12
 * the millisecond time and the other 20 random (the UUIDv7 layout, without dashes). Time first
 * keeps inserts into the log's id index at its right edge instead of at random pages, which is
 * most of what a row insert costs once the table outgrows the page cache.
 */
import { randomUUID } from 'node:crypto';

/** A new request id for a call made at `now` (ms). */
export function createRequestId(now: number = Date.now()): string {
  // randomUUID draws from a cached entropy pool: far cheaper than randomBytes per call.
  const random = randomUUID();
  const time = Math.max(0, Math.floor(now)).toString(16).padStart(12, '0').slice(-12);
  // 20 random hex digits: the UUID's first (8) and last (12) groups, which hold no version bits.
  return `req_${time}${random.slice(0, 8)}${random.slice(24)}`;
}
