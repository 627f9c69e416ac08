import { createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestContext } from './test-context.ts';
import type { Logger } from '../kernel/logger.ts';
import * as tracingModule from './tracing.ts';
import { initTracing, loggableEndpoint, shutdownTracing } from './tracing.ts';

function spyLogger() {
  const lines: Array<[string, string, Record<string, unknown> | undefined]> = [];
  const logger: Logger = {
    info: (msg, fields) => void lines.push(['info', msg, fields]),
    warn: (msg, fields) => void lines.push(['warn', msg, fields]),
    error: (msg, fields) => void lines.push(['error', msg, fields]),
  };
  return { logger, lines };
}

afterEach(() => vi.unstubAllEnvs());

describe('tracing set-up', () => {
  it('stays off, with a warning, when the endpoint is no http(s) URL', async () => {
    const { logger, lines } = spyLogger();
    await initTracing(logger, '1.0.0', { OTEL_EXPORTER_OTLP_ENDPOINT: 'otel-collector:4318' });
    expect(tracingModule.tracing).toBeNull();
    expect(lines).toEqual([
      ['warn', 'tracing off: OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL', { endpoint: 'otel-collector:4318', protocol: 'http/protobuf' }],
    ]);
  });

  it('stays off, with a warning, for the gRPC protocol: the image carries only the OTLP/HTTP exporters', async () => {
    const { logger, lines } = spyLogger();
    await initTracing(logger, '1.0.0', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(tracingModule.tracing).toBeNull();
    expect(lines).toEqual([
      ['warn', expect.stringMatching(/^tracing off: OTEL_EXPORTER_OTLP_PROTOCOL must be one of http\/protobuf, http\/json \(this build carries no gRPC exporter/), { protocol: 'grpc' }],
    ]);
  });

  it('logs the endpoint without its credentials or query', () => {
    expect(loggableEndpoint('http://user:s3cr3t@collector:4318')).toBe('http://collector:4318');
    expect(loggableEndpoint('https://collector.example/otlp/v1/traces?token=s3cr3t')).toBe('https://collector.example/otlp/v1/traces');
    expect(loggableEndpoint('user:s3cr3t@collector:4317')).toBe('collector:4317');
    expect(loggableEndpoint('unix://user:s3cr3t@/run/otel.sock')).toBe('unix:///run/otel.sock');
  });

  it('gives up the spans still buffered after the timeout when the collector does not answer, with one warning', async () => {
    // A collector that accepts connections and never answers.
    const sockets: Socket[] = [];
    const blackHole = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((done) => blackHole.listen(0, '127.0.0.1', done));
    const endpoint = `http://collector:s3cr3t@127.0.0.1:${(blackHole.address() as { port: number }).port}`;
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', endpoint);
    vi.stubEnv('OTEL_BSP_SCHEDULE_DELAY', '600000');
    const { logger, lines } = spyLogger();
    try {
      await initTracing(logger, '1.0.0');
      expect(lines[0]).toEqual(['info', 'tracing on', { endpoint: endpoint.replace('collector:s3cr3t@', ''), protocol: 'http/protobuf' }]);
      const ctx = createTestContext();
      tracingModule.tracing!.start(ctx)!.end(ctx);
      const started = Date.now();
      await shutdownTracing(300);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(lines.slice(1)).toEqual([['warn', 'trace export at shutdown timed out: the spans still buffered are lost', { timeout_ms: 300 }]]);
      expect(tracingModule.tracing).toBeNull();
    } finally {
      for (const socket of sockets) socket.destroy();
      blackHole.close();
    }
  });
});
