/**
 * Request ids, which are also the call log's primary key: `req_` + 32 hex digits, the first 12
 * the millisecond time and the other 20 random (the UUIDv7 layout, without dashes). Time first
 * keeps inserts into the log's id index at its right edge instead of at random pages, which is
 * most of what a row insert costs once the table outgrows the page cache.
 */
import { randomFillSync } from 'node:crypto';

const RANDOM_DIGITS = 20;
/** Ids served by one draw of random bytes: one system-level draw and one hex encoding per 256. */
const IDS_PER_DRAW = 256;
const drawn = Buffer.alloc((IDS_PER_DRAW * RANDOM_DIGITS) / 2);
let randomHex = '';
let nextId = IDS_PER_DRAW;
/** The time digits of the last millisecond asked for: the calls of one millisecond share them. */
let lastMs = -1;
let lastTime = '';

/** A new request id for a call made at `now` (ms). */
export function createRequestId(now: number = Date.now()): string {
  const ms = Math.max(0, Math.floor(now));
  if (ms !== lastMs) {
    lastMs = ms;
    lastTime = ms.toString(16).padStart(12, '0').slice(-12);
  }
  if (nextId === IDS_PER_DRAW) {
    randomHex = randomFillSync(drawn).toString('hex');
    nextId = 0;
  }
  const at = nextId++ * RANDOM_DIGITS;
  return `req_${lastTime}${randomHex.slice(at, at + RANDOM_DIGITS)}`;
}
