/**
 * The log list against what COUNT(*) and ORDER BY … LIMIT/OFFSET answer, for random filters,
 * windows and pages, after inserts, ignored duplicates and retention deletes: the counted list
 * (count-list.ts, kept by migration 7's triggers) must give exactly those rows and totals.
 * sqlite.test.ts and postgres.test.ts run it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeRecord } from './test-records.ts';
import type { LogFilter, LogRecord, LogStore } from './types.ts';
import type { StoreHandle } from './store.suite.ts';
import { seededRandom as rng } from '../../kernel/seeded-random.ts';

const T = Date.parse('2024-03-01T00:00:00Z');
const HOUR = 3_600_000;
const DAY = 86_400_000;

const pick = <T,>(rand: () => number, values: readonly T[]): T => values[Math.floor(rand() * values.length)]!;

/** Calls over four days, bunched into a few hours, some on an hour's first or last millisecond, some on one shared millisecond. */
function records(rand: () => number, count: number, idFrom: number): LogRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const hour = T + Math.floor(rand() * 4) * DAY + pick(rand, [0, 1, 5, 11, 23]) * HOUR;
    const created_at = hour + pick(rand, [0, HOUR - 1, 1_000, Math.floor(rand() * HOUR)]);
    const failed = rand() < 0.3;
    const key = Math.floor(rand() * 4);
    return makeRecord({
      id: `log_${(idFrom + i).toString(16).padStart(8, '0')}`, created_at, api_key_id: `k${key}`, account_id: `a${key % 2}`,
      model: pick(rand, ['m0', 'm1', 'm2']), provider_id: pick(rand, [null, 'p0', 'p1']), endpoint: pick(rand, ['chat', 'embeddings'] as const),
      status: failed ? 'error' : 'success', error_code: failed ? pick(rand, [null, 'e0', 'e1']) : null,
    });
  });
}

function randomFilter(rand: () => number): LogFilter {
  const filter: LogFilter = {};
  const maybe = () => rand() < 0.3;
  if (maybe()) filter.api_key_id = pick(rand, ['k0', 'k1', 'k3', 'nobody']);
  if (maybe()) filter.account_id = pick(rand, ['a0', 'a1']);
  if (maybe()) filter.model = pick(rand, ['m0', 'm2']);
  if (maybe()) filter.status = pick(rand, ['success', 'error'] as const);
  if (maybe()) filter.provider = pick(rand, ['p0', 'p1', '']);
  if (maybe()) filter.error_code = pick(rand, ['e0', 'e1', '']);
  if (maybe()) filter.endpoint = pick(rand, ['chat', 'embeddings'] as const);
  const edge = () => T + Math.floor(rand() * 5 * DAY) - DAY / 2;
  const aligned = () => T + Math.floor(rand() * 5) * DAY + pick(rand, [0, 5 * HOUR, 12 * HOUR]);
  if (rand() < 0.6) filter.start_time = rand() < 0.5 ? edge() : aligned();
  if (rand() < 0.6) filter.end_time = rand() < 0.5 ? edge() : aligned() - 1;
  return filter;
}

/** The rows COUNT and OFFSET give: the filter applied to the stored rows, newest first, ties by id. */
function plainList(rows: LogRecord[], f: LogFilter, page: number, pageSize: number) {
  const matches = rows.filter((r) =>
    (f.start_time === undefined || r.created_at >= f.start_time) && (f.end_time === undefined || r.created_at <= f.end_time) &&
    (f.api_key_id === undefined || r.api_key_id === f.api_key_id) && (f.account_id === undefined || r.account_id === f.account_id) &&
    (f.model === undefined || r.model === f.model) && (f.status === undefined || r.status === f.status) &&
    (f.provider === undefined || r.provider_id === f.provider) && (f.error_code === undefined || r.error_code === f.error_code) &&
    (f.endpoint === undefined || r.endpoint === f.endpoint));
  matches.sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1));
  return { ids: matches.slice((page - 1) * pageSize, page * pageSize).map((r) => r.id), total: matches.length };
}

export function describeListContract(name: string, open: () => Promise<StoreHandle>): void {
  describe(`log list equals COUNT and OFFSET: ${name}`, () => {
    let handle: StoreHandle;
    let store: LogStore;
    beforeEach(async () => {
      handle = await open();
      store = handle.store;
    });
    afterEach(async () => {
      await handle.cleanup();
    });

    async function expectPlainAnswers(rand: () => number, stored: LogRecord[], rounds: number): Promise<void> {
      for (let round = 0; round < rounds; round++) {
        const filter = randomFilter(rand);
        const pageSize = pick(rand, [1, 7, 20, 100]);
        const page = 1 + Math.floor(rand() * (rand() < 0.7 ? 3 : 40));
        const { items, total } = await store.list(filter, page, pageSize);
        expect({ ids: items.map((i) => i.id), total }, `${JSON.stringify(filter)} page ${page} of ${pageSize}`).toEqual(plainList(stored, filter, page, pageSize));
      }
    }

    it('after inserts, ignored duplicates and a retention delete', async () => {
      const rand = rng(37);
      const stored = records(rand, 500, 0);
      for (let i = 0; i < stored.length; i += 120) await store.insertBatch(stored.slice(i, i + 120));
      // Replays with other fields: ignored by id, so neither listed nor counted.
      await store.insertBatch(stored.slice(0, 50).map((r) => ({ ...r, model: 'm2', provider_id: 'p1', created_at: T + 2 * DAY })));
      await expectPlainAnswers(rand, stored, 120);

      const cutoff = T + DAY + 11 * HOUR + 1_000;
      expect(await store.deleteOlderThan(cutoff)).toBe(stored.filter((r) => r.created_at < cutoff).length);
      await expectPlainAnswers(rand, stored.filter((r) => r.created_at >= cutoff), 60);
    });

    it('pages deep through a day whose hours hold many rows', async () => {
      const stored = Array.from({ length: 24 * 40 }, (_, i) => makeRecord({ id: `log_${i.toString(16).padStart(8, '0')}`, created_at: T + Math.floor(i / 40) * HOUR + (i % 7) }));
      await store.insertBatch(stored);
      for (const [page, pageSize] of [[1, 20], [25, 20], [9, 100], [10, 100], [11, 100]] as const) {
        const { items, total } = await store.list({ model: 'm1' }, page, pageSize);
        expect({ ids: items.map((i) => i.id), total }).toEqual(plainList(stored, { model: 'm1' }, page, pageSize));
      }
    });
  });
}
