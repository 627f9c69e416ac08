/**
 * The config version rule (version.ts): a gateway reads its own version and older strictly, and a
 * newer version's file with the fields it does not know ignored, each with a located warning, so a
 * previous release restarted on the next release's config still starts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigText } from './load.ts';
import { openConfig } from './holder.ts';
import { formatProblem } from './problems.ts';
import { CONFIG_VERSION } from './version.ts';
import type { Logger } from '../kernel/logger.ts';

const FILE = path.join(process.cwd(), 'gateway.yaml');
const NEXT = CONFIG_VERSION + 1;

const BASE = `providers:
  - id: mock
    type: compat
    endpoint: http://127.0.0.1:9999/v1
    new_provider_field: 3
models:
  - id: gpt-4o-mini
    provider: mock
brand_new_section:
  enabled: true
`;

const load = (text: string) => loadConfigText(text, FILE, {});
const problemsOf = (text: string) => {
  const r = load(text);
  return r.ok ? [] : r.problems.map(formatProblem);
};

describe('config version', () => {
  it('absent, is this gateway version, read strictly: an unknown field is refused as before', () => {
    expect(problemsOf(BASE)).toEqual([
      'gateway.yaml:5:5 providers[0].new_provider_field is not a known field',
      'gateway.yaml:9:1 brand_new_section is not a known field',
    ]);
    const r = load(BASE.replace('    new_provider_field: 3\n', '').replace(/brand_new_section:\n.*\n/, ''));
    expect(r.ok && r.config.version).toBe(CONFIG_VERSION);
    expect(r.ok && r.warnings).toBeUndefined();
  });

  it("equal to this gateway's, is read strictly too (a typo is still a typo)", () => {
    expect(problemsOf(`version: ${CONFIG_VERSION}\n${BASE}`)).toHaveLength(2);
  });

  it('newer: the unknown fields are removed with one located warning each naming both versions; the rest is the config', () => {
    const r = load(`version: ${NEXT}\n${BASE}`);
    if (!r.ok) throw new Error(r.problems.map(formatProblem).join('\n'));
    expect(r.config.version).toBe(NEXT);
    expect(r.config.providers[0]).not.toHaveProperty('new_provider_field');
    expect(r.config).not.toHaveProperty('brand_new_section');
    expect(r.config.providers[0]!.endpoint).toBe('http://127.0.0.1:9999/v1');
    expect(r.warnings!.map(formatProblem)).toEqual([
      `gateway.yaml:6:5 providers[0].new_provider_field is not known to this gateway (config version ${CONFIG_VERSION}): ignored, as the file is written for version ${NEXT}`,
      `gateway.yaml:10:1 brand_new_section is not known to this gateway (config version ${CONFIG_VERSION}): ignored, as the file is written for version ${NEXT}`,
    ]);
  });

  it('newer, with a field this gateway knows that is wrong: refused, and the version says why the rest passed', () => {
    const lines = problemsOf(`version: ${NEXT}\n${BASE.replace('type: compat', 'type: nonsense')}`);
    expect(lines[0]).toMatch(/^gateway\.yaml:1:10 version is 2, newer than this gateway's 1: its unknown fields were ignored/);
    expect(lines[1]).toMatch(/providers\[0\]\.type must be one of/);
    expect(lines).toHaveLength(2);
  });

  it('must be a positive integer', () => {
    expect(problemsOf(`version: 0\n${BASE}`)[0]).toBe('gateway.yaml:1:10 version must be >= 1');
    expect(problemsOf(`version: two\n${BASE}`)[0]).toBe('gateway.yaml:1:10 version must be an integer');
  });

  it('a gateway started on a newer config logs each ignored field as a warning and serves it', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gw-version-'));
    const warned: { message: string; fields?: Record<string, unknown> }[] = [];
    const logger = { warn: (message: string, fields?: Record<string, unknown>) => warned.push({ message, fields }), info() {}, error() {}, debug() {} } as unknown as Logger;
    try {
      const file = path.join(dir, 'gateway.yaml');
      await writeFile(file, `version: ${NEXT}\n${BASE}`);
      const holder = await openConfig({ file, env: {}, logger, watch: false, build: async (snapshot) => ({ snapshot }), release: async () => {} });
      expect(holder.current().snapshot.config.version).toBe(NEXT);
      expect(warned.map((w) => w.message)).toEqual(['config field ignored', 'config field ignored']);
      expect(String(warned[0]!.fields!.problem)).toMatch(/providers\[0\]\.new_provider_field is not known to this gateway/);
      await holder.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
