/**
 * A call's bodies and the other texts only the detail read shows live in `call_log_bodies`
 * (migration 8), one row per call, not in `call_logs`: at about two thirds of a row's bytes they
 * made every scan of the log (list counts over unindexed filters, the breakdown) read three times
 * the pages (bench/README.md, issue 37). Rows written before, and rows the previous release
 * writes, keep them inline; the detail read takes the side row's copy, else the inline one.
 * Both stores write a side row only for a call they really inserted, and a trigger removes it
 * with its call, whichever release deletes it.
 */
import { LOG_COLUMNS } from './rows.ts';

/** The columns moved out, in `call_log_bodies` order after its `id`. */
export const BODY_COLUMNS = ['request', 'response', 'attempts', 'error_message', 'guardrails'] as const;

const moved = new Set<string>(BODY_COLUMNS);

/**
 * What a new row writes into `call_logs` (attempts aside: NOT NULL since migration 1, it gets
 * `'[]'`, which also tells the previous release's detail read that it has none to show).
 */
export const INLINE_COLUMNS = LOG_COLUMNS.filter((c) => !moved.has(c));

/** The detail read of one call (`placeholder` its id), every column a full row has, bodies from either place. */
export function detailSql(placeholder: string): string {
  const columns = LOG_COLUMNS.map((c) => (moved.has(c) ? `COALESCE(b.${c}, c.${c}) AS ${c}` : `c.${c}`));
  return `SELECT ${columns.join(', ')} FROM call_logs c LEFT JOIN call_log_bodies b ON b.id = c.id WHERE c.id = ${placeholder}`;
}
