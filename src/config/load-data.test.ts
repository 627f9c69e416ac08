import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { loadConfigData, loadConfigText } from './load.ts';

const FILE = '/virtual/gateway.yaml';
const BASE = readFileSync(new URL('../../test/fixtures/management.yaml', import.meta.url), 'utf8');
const ENV = { MOCK_URL: 'http://mock/v1', NAME: 'from env' };
const SECRETS = { provider_mock_api_key: 'sk-upstream' };

const rawOf = (text: string) => parseDocument(text).toJS();

describe('loadConfigData', () => {
  it('gives the config loadConfigText gives for the same file: substitution, literals, secrets, defaults', () => {
    const text = BASE.replace('api_key: upstream-secret-key-0001', 'api_key: ${secret:provider_mock_api_key}')
      .replace('name: Demo key', () => 'name: "$${GATEWAY_MASTER_KEY} ${NAME} ${UNSET:-fallback}"');
    const full = loadConfigText(text, FILE, ENV, SECRETS);
    expect(full.ok).toBe(true);
    const fromData = loadConfigData(rawOf(text), ENV, SECRETS);
    expect(fromData).toEqual(full.ok && full.config);
    expect(fromData!.keys[0]!.name).toBe('${GATEWAY_MASTER_KEY} from env fallback');
    expect(fromData!.providers[0]!.api_key).toBe('sk-upstream');
  });

  it('never changes the data it is given, so a remembered parse can be loaded again', () => {
    const raw = rawOf(BASE);
    const copy = structuredClone(raw);
    loadConfigData(raw, ENV, {});
    expect(raw).toEqual(copy);
  });

  it('answers null, for the full load to word it, on a bad reference or an invalid file', () => {
    expect(loadConfigData(rawOf(BASE), {}, {})).toBeNull();
    expect(loadConfigData(rawOf(BASE.replace('priority: 0', 'priority: high')), ENV, {})).toBeNull();
    expect(loadConfigData(rawOf(BASE.replace('account: demo', 'account: nobody')), ENV, {})).toBeNull();
  });

  it('answers null where only the full load knows a plain ${VAR} may become a number', () => {
    const text = BASE.replace('priority: 0', 'priority: ${PRIORITY}');
    expect(loadConfigText(text, FILE, { ...ENV, PRIORITY: '3' }).ok).toBe(true);
    expect(loadConfigData(rawOf(text), { ...ENV, PRIORITY: '3' }, {})).toBeNull();
  });
});
