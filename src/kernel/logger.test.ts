import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from './logger.ts';

/** The levels a logger made for `level` writes. */
function written(level: string): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((line) => (lines.push(String(line)), true));
  const logger = createLogger(level);
  logger.info('i');
  logger.warn('w');
  logger.error('e');
  return lines.map((line) => JSON.parse(line).level);
}

describe('createLogger', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes the level and above, whatever the case of its name', () => {
    expect(written('warn')).toEqual(['warn', 'error']);
    expect(written('ERROR')).toEqual(['error']);
    expect(written('silent')).toEqual([]);
  });

  it('logs from info up for a name it does not know, one of Object\'s members too', () => {
    expect(written('debug')).toEqual(['info', 'warn', 'error']);
    expect(written('constructor')).toEqual(['info', 'warn', 'error']);
  });
});
