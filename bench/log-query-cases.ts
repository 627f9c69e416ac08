/**
 * What the log-query benchmark times: every filter of the log list (spec 4.5 and ours), alone
 * and in the combinations a console sends, with and without time windows, first and deep pages
 * (each answer counts its `total`), the detail read, and every statistics query
 * (src/features/statistics: usage, cost and models by day, month and model in several zones,
 * for all accounts, one account and one key; the CSV export; the breakdown by each dimension).
 */
import { breakdownStats, BREAKDOWN_DIMENSIONS } from '../src/features/statistics/breakdown.ts';
import { costStats, exportStatistics, modelStats, usageStats, type StatsQuery } from '../src/features/statistics/queries.ts';
import type { LogFilter, LogStore } from '../src/features/logs/types.ts';
import { benchId, DATA_DAYS, DATA_START, timeOf } from './log-data.ts';

export interface QueryCase {
  label: string;
  run(store: LogStore): Promise<unknown>;
}

const DAY = 86_400_000;
const last = DATA_START + DATA_DAYS * DAY - 1;
const lastDay = { start_time: last - DAY + 1, end_time: last };
const lastWeek = { start_time: last - 7 * DAY + 1, end_time: last };
/** A window in the middle that starts and ends off any hour or day. */
const midWindow = { start_time: DATA_START + 12 * DAY + 3_600_000 * 5.5 + 123, end_time: DATA_START + 15 * DAY + 3_600_000 * 7.25 + 456 };
/** The console's default page (spec 4.5: 20) and a deep one: page 500 of 100 skips 49,900 rows. */
const first = (filter: LogFilter) => (store: LogStore) => store.list(filter, 1, 20);
const deep = (filter: LogFilter) => (store: LogStore) => store.list(filter, 500, 100);

const list = (label: string, filter: LogFilter, pages: 'first' | 'both' = 'first'): QueryCase[] => [
  { label: `list ${label}`, run: first(filter) },
  ...(pages === 'both' ? [{ label: `list ${label}, page 500 of 100`, run: deep(filter) }] : []),
];

export function listCases(rows: number): QueryCase[] {
  const someId = benchId(Math.floor(rows * 0.37), timeOf(Math.floor(rows * 0.37), rows));
  return [
    ...list('all', {}, 'both'),
    ...list('last 24 h', lastDay, 'both'),
    ...list('last 7 days', lastWeek, 'both'),
    ...list('a 3-day window off the hour', midWindow),
    ...list('api_key_id', { api_key_id: 'key_7' }, 'both'),
    ...list('model', { model: 'claude-sonnet' }, 'both'),
    ...list('status=error', { status: 'error' }, 'both'),
    ...list('status=success', { status: 'success' }, 'both'),
    ...list('account_id', { account_id: 'acct_2' }, 'both'),
    ...list('provider (a large one)', { provider: 'openai' }, 'both'),
    ...list('provider (a fallback, 1 %)', { provider: 'azure' }),
    ...list('error_code', { error_code: 'upstream_timeout' }),
    ...list('endpoint=embeddings', { endpoint: 'embeddings' }, 'both'),
    ...list('endpoint=chat', { endpoint: 'chat' }, 'both'),
    ...list('api_key_id + status=error', { api_key_id: 'key_7', status: 'error' }),
    ...list('account_id + model', { account_id: 'acct_2', model: 'gpt-4o' }, 'both'),
    ...list('account_id + last 7 days (a member\'s console)', { account_id: 'acct_2', ...lastWeek }, 'both'),
    ...list('model + status=error + last 24 h', { model: 'gpt-4o', status: 'error', ...lastDay }),
    ...list('provider + error_code', { provider: 'anthropic', error_code: 'upstream_unavailable' }),
    ...list('api_key_id + model + error_code (rare)', { api_key_id: 'key_3', model: 'qwen-max', error_code: 'rate_limit_exceeded' }),
    ...list('account_id + endpoint + provider + 3-day window', { account_id: 'acct_1', endpoint: 'responses', provider: 'google', ...midWindow }),
    ...list('status=success + endpoint=chat + provider (wide)', { status: 'success', endpoint: 'chat', provider: 'openai' }, 'both'),
    ...list('a model nobody used', { model: 'nope' }),
    { label: 'detail by id', run: (store) => store.get(someId) },
    { label: 'detail of an unknown id', run: (store) => store.get('req_ffffffffffffffffffffffffffffffff') },
  ];
}

const month: StatsQuery = { start_date: '2024-03-01', end_date: '2024-03-31', timezone: 'UTC', group_by: 'day' };
const SCOPES: Array<[string, Partial<StatsQuery>]> = [
  ['all accounts', {}],
  ['one account', { account_id: 'acct_2' }],
  ['one key', { account_id: 'acct_2', api_key_id: 'key_7' }],
];

export function statsCases(): QueryCase[] {
  const cases: QueryCase[] = [];
  for (const [scope, over] of SCOPES) {
    const q = (more: Partial<StatsQuery>): StatsQuery => ({ ...month, ...over, ...more });
    const add = (label: string, run: QueryCase['run']) => cases.push({ label: `${label}, ${scope}`, run });
    add('usage by day, 31 days, UTC', (s) => usageStats(s, q({})));
    add('usage by day, 31 days, Asia/Shanghai', (s) => usageStats(s, q({ timezone: 'Asia/Shanghai' })));
    add('usage by day, 31 days, Asia/Kolkata (+5:30)', (s) => usageStats(s, q({ timezone: 'Asia/Kolkata' })));
    add('usage by month, America/New_York', (s) => usageStats(s, q({ timezone: 'America/New_York', group_by: 'month' })));
    add('usage by model', (s) => usageStats(s, q({ group_by: 'model' })));
    add('usage by day, 7 days', (s) => usageStats(s, q({ start_date: '2024-03-24', end_date: '2024-03-30' })));
    add('cost by day', (s) => costStats(s, q({})));
    add('cost by month', (s) => costStats(s, q({ group_by: 'month' })));
    add('cost by model', (s) => costStats(s, q({ group_by: 'model' })));
    add('models', (s) => modelStats(s, q({})));
    add('export usage CSV', (s) => exportStatistics(s, 'usage', q({})));
    for (const by of BREAKDOWN_DIMENSIONS) add(`breakdown by ${by}, 31 days`, (s) => breakdownStats(s, q({}), by));
    add('breakdown by model, 1 day', (s) => breakdownStats(s, q({ start_date: '2024-03-30', end_date: '2024-03-30' }), 'model'));
  }
  return cases;
}
