/**
 * Where a call's bodies live (bodies.ts), on both stores: a new row keeps them in call_log_bodies
 * and none in call_logs; a row as the previous release wrote it keeps them inline; the detail read
 * shows either; a replayed id writes no side row; retention removes side rows with their calls.
 * sqlite.test.ts and postgres.test.ts run it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoreHandle } from './store.suite.ts';
import { makeRecord } from './test-records.ts';
import type { LogRecord, LogStore } from './types.ts';

const T0 = Date.parse('2024-03-10T00:00:00Z');

/** A failed call with every text the side row holds. */
export function withBodies(id: string, createdAt: number, over: Partial<LogRecord> = {}): LogRecord {
  return makeRecord({
    id, created_at: createdAt, status: 'error', http_status: 502, error_code: 'upstream_error', error_message: `failed ${id}`,
    request: JSON.stringify({ messages: [{ role: 'user', content: `question ${id}` }] }),
    response: JSON.stringify({ error: { message: `answer ${id}` } }),
    attempts: [{ model: 'm1', provider: 'p1', status: 502, error_code: 'upstream_error', latency_ms: 7 }],
    guardrails: [{ guardrail: 'pii', check: 'pii', stage: 'input', action: 'flag', result: 'flagged', categories: ['email'] }],
    ...over,
  });
}

/**
 * Moves the side rows of `ids` into call_logs and drops them: the rows then look as the previous
 * release writes them (texts inline, no side row). The same SQL runs on SQLite and PostgreSQL.
 */
export async function inlineBodies(handle: StoreHandle, ids: string[]): Promise<void> {
  // A read first: SQLite's writer stages new rows, and a read moves them into call_logs.
  await handle.store.list({}, 1, 1);
  const list = ids.map((id) => `'${id.replaceAll("'", "''")}'`).join(', ');
  await handle.query(`UPDATE call_logs SET request = b.request, response = b.response, attempts = b.attempts,
      error_message = b.error_message, guardrails = b.guardrails
    FROM call_log_bodies b WHERE b.id = call_logs.id AND call_logs.id IN (${list})`);
  await handle.query(`DELETE FROM call_log_bodies WHERE id IN (${list})`);
}

const count = async (handle: StoreHandle, sql: string) => Number((await handle.query(sql))[0]!.n);

export function describeBodies(name: string, open: () => Promise<StoreHandle>): void {
  describe(`call bodies beside the log rows: ${name}`, () => {
    let handle: StoreHandle;
    let store: LogStore;
    beforeEach(async () => {
      handle = await open();
      store = handle.store;
    });
    afterEach(() => handle.cleanup());

    it('keeps a new row\'s texts in its side row only, and reads them back', async () => {
      await store.insertBatch([withBodies('new', T0)]);
      expect(await store.get('new')).toMatchObject(detailOf(withBodies('new', T0)));
      const [inline] = await handle.query("SELECT request, response, attempts, error_message, guardrails FROM call_logs WHERE id = 'new'");
      // SQLite gives JSON columns as text, PostgreSQL parsed.
      const attempts = typeof inline!.attempts === 'string' ? JSON.parse(inline!.attempts) : inline!.attempts;
      expect({ ...inline, attempts }).toEqual({ request: null, response: null, attempts: [], error_message: null, guardrails: null });
      expect(await count(handle, "SELECT COUNT(*) AS n FROM call_log_bodies WHERE id = 'new'")).toBe(1);
      expect(await store.get('new')).toMatchObject(detailOf(withBodies('new', T0)));
    });

    it('reads the texts of a row written inline (the previous release) as those of a new row', async () => {
      await store.insertBatch([withBodies('old', T0), withBodies('new', T0 + 1)]);
      const before = await store.get('old');
      await inlineBodies(handle, ['old']);
      expect(await count(handle, "SELECT COUNT(*) AS n FROM call_log_bodies WHERE id = 'old'")).toBe(0);
      expect(await store.get('old')).toEqual(before);
      expect(await store.get('old')).toMatchObject(detailOf(withBodies('old', T0)));
      expect(await store.get('new')).toMatchObject(detailOf(withBodies('new', T0 + 1)));
    });

    it('writes no side row for a replayed id, whether its first copy keeps its texts inline or beside', async () => {
      await store.insertBatch([withBodies('old', T0), withBodies('new', T0 + 1)]);
      await inlineBodies(handle, ['old']);
      const replay = (id: string, at: number) => withBodies(id, at, { request: '{"replayed":true}', error_message: 'replayed' });
      await store.insertBatch([replay('old', T0), replay('new', T0 + 1), replay('twice', T0 + 2), replay('twice', T0 + 2)]);
      expect(await handle.query('SELECT id FROM call_log_bodies ORDER BY id')).toEqual([{ id: 'new' }, { id: 'twice' }]);
      expect(await store.get('old')).toMatchObject(detailOf(withBodies('old', T0)));
      expect(await store.get('new')).toMatchObject(detailOf(withBodies('new', T0 + 1)));
      expect((await store.list({}, 1, 10)).total).toBe(3);
    });

    it('removes the side rows of the calls retention deletes, and only those', async () => {
      await store.insertBatch([withBodies('a', T0), withBodies('b', T0 + 1), withBodies('c', T0 + 2)]);
      await inlineBodies(handle, ['a']);
      expect(await store.deleteOlderThan(T0 + 2)).toBe(2);
      expect(await handle.query('SELECT id FROM call_log_bodies ORDER BY id')).toEqual([{ id: 'c' }]);
      expect(await store.get('c')).toMatchObject(detailOf(withBodies('c', T0 + 2)));
    });
  });
}

/** The texts the detail read shows for a record. */
function detailOf(r: LogRecord) {
  return {
    request: JSON.parse(r.request!), response: JSON.parse(r.response!), attempts: r.attempts,
    error_message: r.error_message, guardrails: r.guardrails,
  };
}
