import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfigFile, loadConfigText } from '../load.ts';
import { createGateway, type RunningGateway } from '../../boot/gateway.ts';
import { createLogger } from '../../kernel/logger.ts';
import type { ConfigWriter } from './write-back.ts';

// Counts the whole-file loads: the incremental path must not need them.
vi.mock('../load.ts', async (original) => {
  const load = await original<typeof import('../load.ts')>();
  return { ...load, loadConfigText: vi.fn(load.loadConfigText), loadConfigFile: vi.fn(load.loadConfigFile) };
});

const ENV = { MOCK_URL: 'http://127.0.0.1:9/v1' };
let dir: string;
let file: string;
let gateway: RunningGateway;
let writer: ConfigWriter;

const key = (id: string, account = 'demo') => ({
  id,
  name: `key ${id}`,
  key_hash: `sha256:${createHash('sha256').update(id).digest('hex')}`,
  hint: id.slice(-4).padStart(4, '0'),
  account,
  status: 'active',
  permissions: { models: ['gpt-4o-mini'], rate_limit: 60 },
});
const keyIds = () => gateway.runtime.current().config.keys.map((k) => k.id);
/** The config in force is the one a fresh load of the file gives. */
async function expectInForce(): Promise<void> {
  const fresh = await loadConfigFile(file, ENV);
  expect(fresh.ok && fresh.config).toEqual(gateway.runtime.current().config);
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gw-write-back-'));
  file = join(dir, 'gateway.yaml');
  await writeFile(file, await readFile(new URL('../../../test/fixtures/management.yaml', import.meta.url), 'utf8'));
  gateway = await createGateway({ configFile: file, env: { ...ENV, GATEWAY_DATA_DIR: join(dir, 'data') }, logger: createLogger('silent'), watch: false });
  writer = gateway.writer;
  vi.mocked(loadConfigText).mockClear();
  vi.mocked(loadConfigFile).mockClear();
});

afterEach(async () => {
  await gateway.close();
  await rm(dir, { recursive: true, force: true });
});

describe('incremental write-back', () => {
  it('creates, updates and deletes items without a whole-file load, the config in force matching the file', async () => {
    await writer.change((draft) => draft.items.append('keys', key('k-one')));
    await writer.change((draft) => draft.items.append('keys', key('k-two')));
    await writer.change((draft) => draft.items.merge('keys', 'k-one', { name: 'renamed', status: 'inactive' }));
    await writer.change((draft) => draft.items.remove('keys', 'demo-key'));
    expect(loadConfigText).not.toHaveBeenCalled();
    expect(loadConfigFile).not.toHaveBeenCalled();
    expect(keyIds()).toEqual(['k-one', 'k-two']);
    expect(gateway.runtime.current().keysById.get('k-one')).toMatchObject({ name: 'renamed', status: 'inactive' });
    const text = await readFile(file, 'utf8');
    expect(text).toContain('# Management e2e fixture.  This header comment must survive every API write.\n');
    expect(text).toContain('    provider: mock             # keep me\n');
    await expectInForce();
  });

  it('does not lose an edit made by hand between two API writes', async () => {
    await writer.change((draft) => draft.items.append('keys', key('k-one')));
    const edited = (await readFile(file, 'utf8')).replace('retries: 0', 'retries: 2  # by hand').replace('name: key k-one', 'name: hand named');
    await writeFile(file, edited);
    await writer.change((draft) => draft.items.merge('keys', 'k-one', { status: 'inactive' }));
    const text = await readFile(file, 'utf8');
    expect(text).toContain('retries: 2  # by hand');
    expect(text).toContain('name: hand named');
    expect(gateway.runtime.current().config.routing.retries).toBe(2);
    expect(gateway.runtime.current().keysById.get('k-one')).toMatchObject({ name: 'hand named', status: 'inactive' });
    await expectInForce();
  });

  it('never edits a remembered text the file no longer holds, even one it held before', async () => {
    const original = await readFile(file, 'utf8');
    await writer.change((draft) => draft.items.append('keys', key('k-one')));
    // Put the original back by hand: the item the writer just added is gone from the file.
    await writeFile(file, original);
    await expect(writer.change((draft) => draft.items.merge('keys', 'k-one', { status: 'inactive' }))).resolves.toBe(false);
    await writer.change((draft) => draft.items.append('keys', key('k-two')));
    expect(await readFile(file, 'utf8')).not.toContain('k-one');
    expect(keyIds()).toEqual(['demo-key', 'k-two']);
    await expectInForce();
  });

  it('leaves the file, the config in force and the remembered state untouched when a write is refused', async () => {
    await writer.change((draft) => draft.items.append('keys', key('k-one')));
    const text = await readFile(file, 'utf8');
    const version = gateway.runtime.current().version;
    await expect(writer.change((draft) => draft.items.append('keys', key('k-bad', 'nobody')))).rejects.toMatchObject({ status: 400, param: 'keys[2].account' });
    await expect(writer.change((draft) => draft.items.merge('keys', 'k-one', { status: 'sleeping' }))).rejects.toMatchObject({ status: 400 });
    expect(await readFile(file, 'utf8')).toBe(text);
    expect(gateway.runtime.current().version).toBe(version);
    await writer.change((draft) => draft.items.append('keys', key('k-two')));
    expect(keyIds()).toEqual(['demo-key', 'k-one', 'k-two']);
    expect(await readFile(file, 'utf8')).not.toContain('k-bad');
    await expectInForce();
  });

  it('takes the whole-file path for a change it cannot do in a window, with the same result', async () => {
    await writer.change((draft) => {
      draft.items.append('groups', { id: 'g2', name: 'Second', priority: 1 });
      draft.items.append('groups', { id: 'g3', name: 'Third', priority: 2 });
    });
    expect(loadConfigText).toHaveBeenCalledTimes(1);
    expect(gateway.runtime.current().config.groups.map((g) => g.id)).toEqual(['default', 'g2', 'g3']);
    await writer.change((draft) => draft.items.remove('groups', 'g3'));
    expect(loadConfigText).toHaveBeenCalledTimes(1);
    await expectInForce();
  });
});
