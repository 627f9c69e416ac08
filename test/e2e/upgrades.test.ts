/**
 * Upgrades and rollbacks, as an operator meets them with the real process (README: Upgrades and
 * rollbacks): a gateway started on the next release's gateway.yaml (a newer `version:` with fields
 * it does not know) serves, warning about each field it ignores; one started on a call-log
 * database a newer release migrated in a way older gateways cannot use refuses to start, saying why.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_VERSION } from '../../src/config/version.ts';
import { spawnGateway, waitHealthy, type GatewayProcess } from '../_process.ts';

const CONFIG = `version: ${CONFIG_VERSION + 1}
providers:
  - id: mock
    type: compat
    endpoint: http://127.0.0.1:9/v1
    models: [m]
    added_by_a_later_release: true
models:
  - id: m
    provider: mock
a_later_section:
  enabled: true
`;

let dir: string;
let gateway: GatewayProcess | undefined;
afterEach(async () => {
  if (gateway && gateway.child.exitCode === null) {
    gateway.child.kill('SIGTERM');
    await gateway.exited;
  }
  gateway = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function start(config = CONFIG) {
  dir = await mkdtemp(join(tmpdir(), 'gw-upgrades-'));
  await writeFile(join(dir, 'gateway.yaml'), config);
  gateway = await spawnGateway({ GATEWAY_CONFIG: join(dir, 'gateway.yaml'), GATEWAY_DATA_DIR: dir, DATABASE_URL: '', REDIS_URL: '' });
  return gateway;
}

describe('upgrades and rollbacks', { timeout: 60_000 }, () => {
  it("starts on a newer release's gateway.yaml, with one warning per field it does not know", async () => {
    const gw = await start();
    await waitHealthy(gw);
    const warnings = gw.output().split('\n').filter((line) => line.includes('config field ignored'));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/providers\[0\]\.added_by_a_later_release is not known to this gateway \(config version 1\): ignored, as the file is written for version 2/);
    expect(warnings[1]).toMatch(/a_later_section is not known to this gateway/);
  });

  it('refuses to start on a call-log database whose schema needs a newer gateway, and says what to do', async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-upgrades-'));
    const db = new Database(join(dir, 'gateway.db'));
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL, min_reader INTEGER)');
    db.prepare('INSERT INTO schema_migrations VALUES (99, ?, 0, 99)').run('from a far newer release');
    db.close();
    const current = CONFIG.replace(/^version: .*\n/, '').replace(/ *added_by_a_later_release.*\n/, '').replace(/a_later_section:[^]*$/, '');
    await writeFile(join(dir, 'gateway.yaml'), current);
    gateway = await spawnGateway({ GATEWAY_CONFIG: join(dir, 'gateway.yaml'), GATEWAY_DATA_DIR: dir, DATABASE_URL: '', REDIS_URL: '' });
    expect(await gateway.exited).toBe(1);
    expect(gateway.output()).toMatch(/is at schema version 99, which a gateway must know schema version 99 or later to use .*Run the newer release, or restore the database backup/);
  });
});
