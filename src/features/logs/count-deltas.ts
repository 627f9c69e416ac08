/**
 * What a batch of inserted rows adds to call_log_counts_hour and _day (migrations-counts.ts): one
 * match count per bucket and combination of the key columns, so that the SQLite writer upserts
 * each once per batch instead of a row trigger upserting twice per row.
 */
import { COUNT_KEY_COLUMNS, COUNT_UNITS } from './migrations-counts.ts';
import type { LogRecord } from './types.ts';

export interface CountDelta {
  unit: (typeof COUNT_UNITS)[number][0];
  /** bucket_ms, then the key columns in COUNT_KEY_COLUMNS order (NULLs as ''). */
  key: [number, ...string[]];
  n: number;
}

/** The key columns' values of a row, in COUNT_KEY_COLUMNS order, NULLs as '' (as the trigger stores them). */
function countKey(r: LogRecord): string[] {
  return [r.api_key_id, r.account_id, r.model, r.status, r.provider_id ?? '', r.endpoint, r.error_code ?? ''];
}

if (COUNT_KEY_COLUMNS.join() !== 'api_key_id,account_id,model,status,provider_id,endpoint,error_code') {
  throw new Error('count-deltas.ts countKey does not follow COUNT_KEY_COLUMNS');
}

/** A bucket start as the trigger computes it: floored, so a time before 1970 lands in its own bucket too. */
const bucketStart = (ms: number, size: number) => ms - (((ms % size) + size) % size);

/** Adds rows one at a time, then lists every unit's deltas. */
export function countDeltas() {
  // Stored texts hold no NUL (storable.ts), so it separates the key's parts without ambiguity.
  const byKey = COUNT_UNITS.map(() => new Map<string, CountDelta>());
  return {
    add(r: LogRecord): void {
      const values = countKey(r);
      const joined = values.join('\u0000');
      COUNT_UNITS.forEach(([unit, size], i) => {
        const bucket = bucketStart(r.created_at, size);
        const id = `${bucket}\u0000${joined}`;
        const delta = byKey[i]!.get(id);
        if (delta) delta.n += 1;
        else byKey[i]!.set(id, { unit, key: [bucket, ...values], n: 1 });
      });
    },
    deltas(): CountDelta[] {
      return byKey.flatMap((m) => [...m.values()]);
    },
  };
}
