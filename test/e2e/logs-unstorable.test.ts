/**
 * What a store cannot hold, sent by a member (issue 30): a prompt with a lone surrogate (valid
 * JSON) was served while PostgreSQL refused its row, so the call was free and invisible. On both
 * log stores: every such call is served and logged with its cost, the row says its stored text was
 * sanitized, and NUL in filters and ids answers no match (or a 404), never a 500.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { LogService } from '../../src/features/logs/service.ts';
import { listSpillFiles, readSpillFile, spillDirOf } from '../../src/features/logs/spill.ts';
import { DEMO_KEY, MASTER_KEY, api, useGateway, waitForLogRecord } from '../_setup.ts';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const SCHEMA = `gw_e2e_${randomUUID().replaceAll('-', '').slice(0, 12)}`;

afterAll(async () => {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await client.end();
});

/** Bodies as raw JSON text: `\ud800` and `\u0000` are escapes the client wrote, `1e-20000` a number PostgreSQL's NUMERIC cannot hold. */
const PROMPTS = [
  '"hi \\ud800"', '"hi \\udc00 there"', '"\\ud83d alone"', '"nul \\u0000 inside"', '"\\u0000"',
  '"pair \\ud83d\\ude00 then \\udfff"', '"hi \\ud800"', '"x\\\\u0000 is text, \\u0000 is not"', '"end \\udbff"', '"hi \\ud800"',
];
const bodyOf = (content: string, i: number) =>
  `{"model":"gpt-4o-mini","messages":[{"role":"user","content":${content}}],"user":${i % 2 ? '"u\\ud800"' : '"u\\u0000"'},"temperature":1e-20000}`;

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`values a store cannot hold (${kind})`, () => {
    const state = useGateway('logs.yaml', kind === 'postgres' ? { DATABASE_URL, DATABASE_SCHEMA: SCHEMA } : {});
    const get = (path: string, key = MASTER_KEY) => fetch(`${state.gw.url}${path}`, { headers: { authorization: `Bearer ${key}` } });

    it('serves 10 of 10 prompts with lone surrogates or NUL and logs each with its cost; the rows say they were sanitized', async () => {
      const logs = state.gw.gateway.runtime.services.logs as LogService;
      expect(logs.store.kind).toBe(kind);
      const ids: string[] = [];
      for (const [i, content] of PROMPTS.entries()) {
        const res = await fetch(`${state.gw.url}/api/v1/chat/completions`, {
          method: 'POST', headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' }, body: bodyOf(content, i),
        });
        expect(res.status, await res.clone().text()).toBe(200);
        await res.text();
        ids.push(res.headers.get('x-request-id')!);
      }
      let total = 0;
      for (const id of ids) {
        const row = await waitForLogRecord(state.gw, id);
        expect(row).toMatchObject({ status: 'success', billed: true, sanitized: true, request: { temperature: 0 } });
        expect(row.cost.total).toBeGreaterThan(0);
        // No NUL and no lone surrogate is left (JSON.stringify escapes both; a pair comes back whole).
        expect(JSON.stringify(row.request)).not.toMatch(/(?<!\\)\\u(0000|d[89a-f])/i);
        total += row.cost.total;
      }
      const first = await waitForLogRecord(state.gw, ids[0]!);
      expect(first.request.messages[0].content).toBe('hi \ufffd');
      expect(first.request.user).toBe('u\ufffd');
      const today = new Date().toISOString().slice(0, 10);
      const usage = (await api(state.gw, 'GET', `/v1/statistics/usage?start_date=${today}&end_date=${today}`, undefined, DEMO_KEY)).body;
      expect(usage.summary.request_count).toBe(10);
      const cost = (await api(state.gw, 'GET', `/v1/statistics/cost?start_date=${today}&end_date=${today}`, undefined, DEMO_KEY)).body;
      expect(cost.summary.total_cost).toBeCloseTo(total, 9);
      expect({ refused: logs.queue.refused, dropped: logs.queue.dropped }).toEqual({ refused: 0, dropped: 0 });
      const metrics = await (await fetch(`${state.gw.url}/metrics`)).text();
      expect(metrics).toMatch(/^gateway_log_rows_refused_total 0$/m);
    });

    it('answers NUL and lone surrogates in log and statistics filters and ids with no match or a 404, never a 5xx', async () => {
      const today = new Date().toISOString().slice(0, 10);
      for (const [path, key] of [
        ['/v1/logs?model=%00', DEMO_KEY], ['/v1/logs?api_key_id=%00', DEMO_KEY], ['/v1/admin/logs?model=a%00b&api_key_id=%00', MASTER_KEY],
        ['/v1/logs?model=%ED%A0%80', DEMO_KEY],
      ] as const) {
        const res = await get(path, key);
        expect(res.status, path).toBe(200);
        expect(await res.json(), path).toMatchObject({ data: [], meta: { total: 0 } });
      }
      for (const [path, key] of [['/v1/logs/%00', DEMO_KEY], ['/v1/admin/logs/req_%00', MASTER_KEY], ['/v1/admin/logs/%00%ef%bf%bd', MASTER_KEY]] as const) {
        const res = await get(path, key);
        expect(res.status, path).toBe(404);
        expect((await res.json()).error).toMatchObject({ type: 'not_found_error', code: 'log_not_found' });
      }
      // Percent-escapes that are not UTF-8 (a surrogate's bytes) are refused as the path they are.
      const bad = await get('/v1/logs/%ED%A0%80', DEMO_KEY);
      expect(bad.status).toBe(400);
      expect(Object.keys((await bad.json()).error).sort()).toEqual(['code', 'message', 'param', 'type']);
      for (const stat of ['usage', 'cost', 'models']) {
        const path = `/v1/statistics/${stat}?start_date=${today}&end_date=${today}&api_key_id=%00`;
        for (const key of [DEMO_KEY, MASTER_KEY]) {
          const res = await get(path, key);
          expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(500);
        }
      }
    });

    it.runIf(kind === 'postgres')('keeps a row the database still refuses in a spill file and counts it, never dropping it silently', async () => {
      // A constraint stands in for any value a future column or server setting might refuse.
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      await client.query(`ALTER TABLE ${SCHEMA}.call_logs ADD CONSTRAINT no_refuse_me CHECK (user_agent <> 'refuse-me')`);
      try {
        const res = await fetch(`${state.gw.url}/api/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json', 'user-agent': 'refuse-me' },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        });
        expect(res.status).toBe(200);
        await res.text();
        const id = res.headers.get('x-request-id')!;
        const logs = state.gw.gateway.runtime.services.logs as LogService;
        const dir = spillDirOf(join(state.gw.dir, 'data'));
        let files: string[] = [];
        for (let i = 0; i < 200 && files.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 25));
          files = await listSpillFiles(dir);
        }
        expect(files).toHaveLength(1);
        expect((await readSpillFile(files[0]!))!.records).toMatchObject([{ id, user_agent: 'refuse-me', billed: true }]);
        expect({ refused: logs.queue.refused, dropped: logs.queue.dropped }).toEqual({ refused: 1, dropped: 0 });
        const metrics = await (await fetch(`${state.gw.url}/metrics`)).text();
        expect(metrics).toMatch(/^gateway_log_rows_refused_total 1$/m);
      } finally {
        await client.query(`ALTER TABLE ${SCHEMA}.call_logs DROP CONSTRAINT no_refuse_me`);
        await client.end();
      }
    });
  });
}
