/**
 * What the management API may add to gateway.yaml, in bytes: per account (the keys it owns,
 * management.max_bytes_per_account) and for the whole file (management.max_config_bytes). A
 * member reaching its budget is refused with 409 and leaves every other member's writes alone.
 */
import { readFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { api, DEMO_KEY, MASTER_KEY, useGateway } from '../_setup.ts';

const state = useGateway('write-bounds.yaml');
const call = (method: string, path: string, body?: unknown, key = MASTER_KEY) => api(state.gw, method, path, body, key);

/** 20 model names of 256 characters: about 5 KiB of the file per key. */
const longModels = (tag: string) => Array.from({ length: 20 }, (_, i) => `${tag}-${i}-`.padEnd(256, 'm'));

describe('write bounds', () => {
  it('a member growing its keys past max_bytes_per_account gets 409 account_bytes_limit_reached; another member still writes', async () => {
    const created: string[] = [];
    let refused: { status: number; body: any } | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const answer = await call('POST', '/v1/api-keys', { name: `big-${i}`, permissions: { models: longModels(`k${i}`) } }, DEMO_KEY);
      if (answer.status === 201) created.push(answer.body.id);
      else refused = answer;
    }
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(created.length).toBeLessThanOrEqual(3);
    expect(refused).toMatchObject({
      status: 409,
      body: { error: { type: 'invalid_request_error', code: 'account_bytes_limit_reached', param: null, message: expect.stringContaining('management.max_bytes_per_account (16384)') } },
    });
    const file = await readFile(state.gw.configFile, 'utf8');
    expect(file).not.toContain(`big-${created.length}`);

    // Growing an existing key is refused the same way, and changes nothing.
    const grow = await call('PUT', `/v1/api-keys/${created[0]}`, { permissions: { models: [...longModels('k0'), ...longModels('more'), ...longModels('most'), ...longModels('all')] } }, DEMO_KEY);
    expect(grow.status).toBe(409);
    expect(grow.body.error.code).toBe('account_bytes_limit_reached');
    expect(await readFile(state.gw.configFile, 'utf8')).toBe(file);

    // Another member's budget is its own.
    const otherKey = await call('POST', '/v1/api-keys', { name: 'other-admin-made', account_id: 'other' });
    expect(otherKey.status).toBe(201);
    const own = await call('POST', '/v1/api-keys', { name: 'other-own', permissions: { models: longModels('o') } }, otherKey.body.key);
    expect(own.status).toBe(201);
    expect(own.body.account_id).toBe('other');

    // Over its budget, the member can still shrink and delete.
    expect((await call('PUT', `/v1/api-keys/${created[0]}`, { permissions: { models: ['gpt-4o-mini'] } }, DEMO_KEY)).status).toBe(200);
    for (const id of created) expect((await call('DELETE', `/v1/api-keys/${id}`, undefined, DEMO_KEY)).status).toBe(200);
    expect((await call('POST', '/v1/api-keys', { name: 'fits-again', permissions: { models: longModels('again') } }, DEMO_KEY)).status).toBe(201);
  });

  it('no write grows the file past max_config_bytes: 409 config_size_limit_reached, and deletes still work', async () => {
    const description = 'd'.repeat(4000);
    let refused: { status: number; body: any } | undefined;
    const made: string[] = [];
    for (let i = 0; i < 40 && !refused; i++) {
      const answer = await call('POST', '/v1/admin/groups', { id: `filler-${i}`, description });
      if (answer.status === 201) made.push(`filler-${i}`);
      else refused = answer;
    }
    expect(refused).toMatchObject({
      status: 409,
      body: { error: { type: 'invalid_request_error', code: 'config_size_limit_reached', message: expect.stringContaining('management.max_config_bytes (65536)') } },
    });
    expect((await stat(state.gw.configFile)).size).toBeLessThanOrEqual(65536);
    expect((await call('DELETE', `/v1/admin/groups/${made.at(-1)}`)).status).toBe(200);
    expect((await call('GET', '/v1/admin/groups')).body.data.length).toBe(made.length - 1);
  });
});
