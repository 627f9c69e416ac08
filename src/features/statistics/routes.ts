/**
 * Statistics (spec 4.7, 2.8) over the log store's rollups. Admins see every account; any other
 * caller only its own (CONTRACT). Days are local to the caller's account timezone and the cost
 * is in its currency (converted from the prices' at the configured rate). Scopes (OAuth tokens): read:api for usage and models,
 * read:billing for cost and export.
 */
import { loadSettings } from '../../auth/account-policy.ts';
import { costCurrency } from '../../config/currency.ts';
import { invalidValue } from '../../kernel/errors.ts';
import { isAdmin } from '../../pipeline/principal.ts';
import { breakdownStats, parseDimension } from './breakdown.ts';
import { costStats, exportStatistics, modelStats, parseStatsQuery, usageStats } from './queries.ts';
import type { ExportType, StatsQuery } from './queries.ts';
import type { LogStore } from '../logs/types.ts';
import { defineRoutes, type ApiContext } from '../../http/route.ts';

const EXPORT_TYPES: readonly ExportType[] = ['usage', 'cost', 'models'];

/** The validated query, scoped to the caller's account unless it is an admin. */
async function statsQuery({ runtime, principal, query }: ApiContext): Promise<StatsQuery> {
  const settings = await loadSettings(runtime, runtime.current(), principal);
  return parseStatsQuery(query, {
    timezone: settings.account.timezone,
    ...costCurrency(runtime.current().config.billing, settings.account.currency),
    account_id: isAdmin(principal) ? undefined : principal.accountId,
  });
}

export const statisticsRoutes = (store: LogStore) =>
  defineRoutes([
  {
    method: 'GET',
    path: '/v1/statistics/usage',
    access: 'key',
    async handler(ctx) {
      return usageStats(store, await statsQuery(ctx));
    },
  },
  {
    method: 'GET',
    path: '/v1/statistics/cost',
    access: 'key',
    async handler(ctx) {
      return costStats(store, await statsQuery(ctx));
    },
  },
  {
    method: 'GET',
    path: '/v1/statistics/models',
    access: 'key',
    async handler(ctx) {
      return modelStats(store, await statsQuery(ctx));
    },
  },
  {
    // Additive (not in spec 4.7): per model, provider, key, account or group, with latency percentiles.
    method: 'GET',
    path: '/v1/statistics/breakdown',
    access: 'key',
    async handler(ctx) {
      const by = parseDimension(ctx.query.get('by'));
      return breakdownStats(store, await statsQuery(ctx), by);
    },
  },
  {
    method: 'GET',
    path: '/v1/statistics/export',
    access: 'key',
    async handler(ctx) {
      const format = ctx.query.get('format') || 'csv';
      if (format !== 'csv' && format !== 'json') throw invalidValue("format must be 'csv' or 'json'.", 'format');
      const type = (ctx.query.get('type') || 'usage') as ExportType;
      if (!EXPORT_TYPES.includes(type)) throw invalidValue("type must be 'usage', 'cost' or 'models'.", 'type');
      const q = await statsQuery(ctx);
      if (format === 'csv') {
        const file = await exportStatistics(store, type, q);
        return new Response(file.body, {
          headers: { 'content-type': file.contentType, 'content-disposition': `attachment; filename="${file.filename}"` },
        });
      }
      const result = type === 'usage' ? await usageStats(store, q) : type === 'cost' ? await costStats(store, q) : await modelStats(store, q);
      return new Response(JSON.stringify(result), {
        headers: {
          'content-type': 'application/json',
          'content-disposition': `attachment; filename="${type}-${q.start_date}-${q.end_date}.json"`,
        },
      });
    },
  },
]);
