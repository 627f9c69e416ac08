import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigText } from './load.ts';
import { formatProblem } from './problems.ts';
import { endpointProblem } from './upstream-endpoints.ts';

const FILE = path.join(process.cwd(), 'gateway.yaml');

const config = (endpoint: string, modelEndpoint = 'http://127.0.0.1:8000/v1', extra = '') => `${extra}providers:
  - id: p
    type: compat
    endpoint: ${endpoint}
models:
  - id: m
    provider: p
    endpoint: ${modelEndpoint}
`;

const problemsOf = (text: string, env: Record<string, string> = {}) => {
  const loaded = loadConfigText(text, FILE, env);
  return loaded.ok ? [] : loaded.problems.map(formatProblem);
};

describe('upstream endpoints', () => {
  it.each([
    'file:///etc/passwd',
    'gopher://127.0.0.1:6379/_FLUSHALL',
    'unix:/var/run/docker.sock',
    'ftp://example.com/',
    'ws://127.0.0.1:8000/',
  ])('refuses the scheme of %s', (endpoint) => {
    expect(endpointProblem(endpoint, false)).toMatch(/must be http:\/\/ or https:\/\//);
    // Allowing the link-local range allows no other scheme.
    expect(endpointProblem(endpoint, true)).toMatch(/must be http:\/\/ or https:\/\//);
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://169.254.1.1:8000/v1',
    'http://2852039166/', // decimal
    'http://0xa9fea9fe/', // hex
    'http://0xa9.0376.169.254/', // mixed hex and octal
    'http://169.254.169.254./',
    'http://[fe80::1]/v1',
    'http://[febf:ffff::1]/',
    'http://[fd00:ec2::254]/',
    'http://[::ffff:169.254.169.254]/', // IPv4-mapped
    'http://[::ffff:a9fe:a9fe]/',
    'http://[::169.254.169.254]/', // IPv4-compatible
    'http://[64:ff9b::169.254.169.254]/', // NAT64
    'https://metadata.google.internal/computeMetadata/v1/',
  ])('refuses the link-local or metadata address of %s by default, and allows it when told', (endpoint) => {
    expect(endpointProblem(endpoint, false)).toMatch(/link-local or cloud metadata address.*server\.allow_link_local_upstreams: true/);
    expect(endpointProblem(endpoint, true)).toBeNull();
  });

  it.each([
    'http://127.0.0.1:8000/v1',
    'http://localhost:8000/v1',
    'http://[::1]:8000/v1',
    'http://10.0.0.5/v1',
    'http://192.168.1.10:11434/v1',
    'http://172.16.0.1/v1',
    'http://[fd00::1]/v1',
    'http://[fec0::1]/v1',
    'http://169.255.0.1/v1',
    'https://api.openai.com/v1',
    'HTTPS://Example.COM/v1',
  ])('allows %s (loopback, private and public addresses)', (endpoint) => {
    expect(endpointProblem(endpoint, false)).toBeNull();
  });

  it('refuses such endpoints in gateway.yaml with their path and line, provider and model alike', () => {
    expect(problemsOf(config('http://169.254.169.254/v1', 'file:///etc/passwd'))).toEqual([
      expect.stringMatching(/^gateway\.yaml:4:15 providers\[0\]\.endpoint points at 169\.254\.169\.254, a link-local/),
      expect.stringMatching(/^gateway\.yaml:8:15 models\[0\]\.endpoint uses the scheme "file:"/),
    ]);
  });

  it('checks the endpoint after ${VAR} substitution, and server.allow_link_local_upstreams lets the range in', () => {
    expect(problemsOf(config('${UPSTREAM}'), { UPSTREAM: 'http://[fe80::1]:8000/v1' })).toEqual([
      expect.stringMatching(/^gateway\.yaml:4:15 providers\[0\]\.endpoint points at \[fe80::1\]/),
    ]);
    expect(problemsOf(config('http://169.254.169.254/v1', 'http://[fe80::1]/v1', 'server:\n  allow_link_local_upstreams: true\n'))).toEqual([]);
    expect(problemsOf(config('gopher://169.254.169.254/', undefined, 'server:\n  allow_link_local_upstreams: true\n'))).toEqual([
      expect.stringMatching(/providers\[0\]\.endpoint uses the scheme "gopher:"/),
    ]);
    expect(problemsOf(config('http://127.0.0.1:8000/v1'))).toEqual([]);
  });
});
