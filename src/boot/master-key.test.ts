import { describe, expect, it } from 'vitest';
import { acceptedMasterKey, masterKeyWeakness } from './master-key.ts';
import { createLogger } from '../kernel/logger.ts';

const silent = createLogger('silent');
const STRONG = 'b7e4c1f09a3d5e8f2c6a1b0d9e7f3a45';

describe('master key policy', () => {
  it.each(['change-me', 'CHANGE_ME', 'changeme', 'password', 'secret', 'admin', 'your-master-key', 'change-me-please'])('refuses the well-known %j', (key) => {
    expect(masterKeyWeakness(key)).toBe('it is a well-known placeholder');
  });

  it('refuses a key shorter than 32 characters and one of few distinct characters', () => {
    expect(masterKeyWeakness('sk-bf-master-test-key')).toMatch(/shorter than 32/);
    expect(masterKeyWeakness('a'.repeat(40))).toMatch(/repeats/);
    expect(masterKeyWeakness('abababababababababababababababababab')).toMatch(/repeats/);
  });

  it('accepts a random 32-character key', () => {
    expect(masterKeyWeakness(STRONG)).toBeNull();
    expect(acceptedMasterKey({ GATEWAY_MASTER_KEY: STRONG }, silent)).toBe(STRONG);
  });

  it('stops the start on a weak key, saying how to make one, without echoing it', () => {
    const start = () => acceptedMasterKey({ GATEWAY_MASTER_KEY: 'change-me' }, silent);
    expect(start).toThrow(/GATEWAY_MASTER_KEY is refused: it is a well-known placeholder\. Generate one with `openssl rand -hex 32`/);
    expect(start).not.toThrow(/change-me/);
  });

  it('only warns in development mode', () => {
    const warnings: string[] = [];
    const logger = { ...silent, warn: (message: string) => void warnings.push(message) };
    expect(acceptedMasterKey({ GATEWAY_MASTER_KEY: 'change-me', GATEWAY_DEV_MODE: 'true' }, logger)).toBe('change-me');
    expect(warnings).toEqual([expect.stringContaining('accepted because GATEWAY_DEV_MODE=true')]);
  });

  it('runs without a master key when none is set', () => {
    expect(acceptedMasterKey({}, silent)).toBeUndefined();
    expect(acceptedMasterKey({ GATEWAY_MASTER_KEY: '' }, silent)).toBeUndefined();
  });
});
