/**
 * One aggregated rollup row from a database row, whatever numeric types the driver returns
 * (PostgreSQL strings, SQLite BigInts); the costs come already as exact decimal strings.
 */
import type { RollupRow } from './types.ts';

export function toRollupRow(row: Record<string, unknown>, inputCost: string, outputCost: string): RollupRow {
  return {
    bucket_ms: Number(row.bucket_ms),
    model: String(row.model),
    request_count: Number(row.request_count),
    prompt_tokens: Number(row.prompt_tokens),
    completion_tokens: Number(row.completion_tokens),
    total_tokens: Number(row.total_tokens),
    latency_sum: Number(row.latency_sum),
    input_cost: inputCost,
    output_cost: outputCost,
  };
}
