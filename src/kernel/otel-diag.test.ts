import { describe, expect, it } from 'vitest';
import type { Logger } from './logger.ts';
import { createDiagLogger } from './otel-diag.ts';

describe('OpenTelemetry diag logger', () => {
  it('writes the SDK\'s messages as JSON-logger warnings, each at most once a minute, then says how many it left out', () => {
    const lines: Array<[string, Record<string, unknown> | undefined]> = [];
    const logger: Logger = { info: () => {}, warn: (msg, fields) => void lines.push([msg, fields]), error: () => {} };
    let now = 0;
    const diag = createDiagLogger(logger, 60_000, () => now);
    // What the SDK's global error handler passes for a failed export: the exception as JSON.
    const refused = JSON.stringify({ stack: 'Error: connect ECONNREFUSED 127.0.0.1:1\n    at ...', message: 'connect ECONNREFUSED 127.0.0.1:1', code: 'ECONNREFUSED' });
    for (let i = 0; i < 50; i++) diag.error(refused);
    diag.warn('Dropped 3 spans because maxQueueSize reached');
    now = 61_000;
    diag.error(refused);
    expect(lines).toEqual([
      ['opentelemetry sdk', { detail: 'connect ECONNREFUSED 127.0.0.1:1' }],
      ['opentelemetry sdk', { detail: 'Dropped 3 spans because maxQueueSize reached' }],
      ['opentelemetry sdk', { detail: 'connect ECONNREFUSED 127.0.0.1:1', repeated: 49 }],
    ]);
  });

  it('joins a message with its arguments into one bounded line', () => {
    const lines: string[] = [];
    const logger: Logger = { info: () => {}, warn: (_msg, fields) => void lines.push(String(fields?.detail)), error: () => {} };
    const diag = createDiagLogger(logger);
    diag.warn('Received Partial Success response:', '{"rejectedSpans":2}');
    diag.error('export failed', new Error('socket hang up'));
    diag.warn('x'.repeat(2000));
    expect(lines.slice(0, 2)).toEqual(['Received Partial Success response: {"rejectedSpans":2}', 'export failed socket hang up']);
    expect(lines[2]).toHaveLength(500);
  });
});
