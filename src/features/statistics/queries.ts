/** Statistics over the log store's rollups: queries, parameter parsing, CSV export. */
export { costStats, modelStats, usageStats } from './query.ts';
export type { CostResult, GroupBy, ModelUsageResult, StatsQuery, UsageResult } from './query.ts';
export { parseStatsQuery } from './params.ts';
export type { StatsScope } from './params.ts';
export { exportColumns, exportStatistics } from './export.ts';
export type { ExportType } from './export.ts';
export { toCsv } from './csv.ts';
