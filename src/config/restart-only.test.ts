import { describe, expect, it } from 'vitest';
import { testConfig } from '../pipeline/test-context.ts';
import { restartOnlyChanges } from './restart-only.ts';

describe('restartOnlyChanges', () => {
  it('names the startup-only settings a reload changed, and nothing else', () => {
    const running = testConfig('server: { port: 8080 }\nproviders: []\n');
    expect(restartOnlyChanges(running, testConfig('server: { port: 8080 }\nproviders: []\n'))).toEqual([]);
    const next = testConfig('server: { port: 9090, workers: 2 }\napi: { rate_limit: 5 }\nproviders: []\n');
    expect(restartOnlyChanges(running, next)).toEqual(['server.port', 'server.workers']);
    const oauth = testConfig('server: { port: 8080 }\nproviders: []\noauth: { clients: [{ client_id: app, client_secret: s3cret-value-123, redirect_uris: [http://localhost/cb], scopes: [read:api] }] }\n');
    expect(restartOnlyChanges(running, oauth)).toEqual(['oauth.clients']);
  });
});
