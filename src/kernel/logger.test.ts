import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, keepLogFields, withLogFields } from './logger.ts';

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

  it("carries a traced request's ids on every line logged within it, after awaits and timers too, and nowhere else", async () => {
    const lines: Array<Record<string, unknown>> = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((line) => (lines.push(JSON.parse(String(line))), true));
    const logger = createLogger('info');
    const ids = { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331' };
    await withLogFields(ids, async () => {
      logger.warn('inside', { request: 'r1' });
      await new Promise((r) => setTimeout(r, 1));
      await new Promise<void>((r) => setImmediate(() => (logger.info('later'), r())));
    });
    logger.info('outside');
    expect(lines.map(({ msg, trace_id, span_id }) => ({ msg, trace_id, span_id }))).toEqual([
      { msg: 'inside', ...ids },
      { msg: 'later', ...ids },
      { msg: 'outside', trace_id: undefined, span_id: undefined },
    ]);
    expect(lines[0]!.request).toBe('r1');
  });

  it('keeps the fields in force when work is set aside, for whoever starts it later (a stream\'s relay)', () => {
    const lines: Array<Record<string, unknown>> = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((line) => (lines.push(JSON.parse(String(line))), true));
    const logger = createLogger('info');
    const ids = { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331' };
    const inRequest = withLogFields(ids, () => keepLogFields());
    const untraced = keepLogFields();
    inRequest(() => logger.info('relayed'));
    untraced(() => logger.info('plain'));
    expect(lines.map(({ msg, trace_id, span_id }) => ({ msg, trace_id, span_id }))).toEqual([
      { msg: 'relayed', ...ids },
      { msg: 'plain', trace_id: undefined, span_id: undefined },
    ]);
    expect(inRequest(() => 42)).toBe(42);
  });
});
