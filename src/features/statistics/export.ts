/**
 * `GET /v1/statistics/export`: one statistics result as CSV, with a header row of the field
 * names of that result's `data` rows (CONTRACT.md), then one line per row.
 */
import type { LogStore } from '../logs/types.ts';
import { toCsv } from './csv.ts';
import { costStats, modelStats, usageStats } from './query.ts';
import type { GroupBy, StatsQuery } from './query.ts';

export type ExportType = 'usage' | 'cost' | 'models';

/** The columns of each result's data rows; usage and cost lead with `model` when grouped by it. */
export function exportColumns(type: ExportType, groupBy: GroupBy): string[] {
  const lead = groupBy === 'model' ? 'model' : 'date';
  if (type === 'usage') return [lead, 'total_tokens', 'prompt_tokens', 'completion_tokens', 'request_count', 'avg_latency'];
  if (type === 'cost') return [lead, 'input_cost', 'output_cost', 'total_cost'];
  return ['model', 'request_count', 'total_tokens', 'cost', 'percentage'];
}

/** Runs the statistics query of `type` and renders it; `filename` suits Content-Disposition. */
export async function exportStatistics(
  store: LogStore,
  type: ExportType,
  q: StatsQuery,
): Promise<{ filename: string; contentType: string; body: string }> {
  const result =
    type === 'usage' ? await usageStats(store, q) : type === 'cost' ? await costStats(store, q) : await modelStats(store, q);
  return {
    filename: `${type}-${q.start_date}-${q.end_date}.csv`,
    contentType: 'text/csv; charset=utf-8',
    body: toCsv(result.data, exportColumns(type, q.group_by)),
  };
}
