import { describe, expect, it } from 'vitest';
import { loadConfigText } from './load.ts';

const BASE = `providers:
  - id: mock
    type: compat
    endpoint: http://127.0.0.1:9999/v1
models:
  - id: gpt-4o-mini
    provider: mock
`;

function lines(text: string): string[] {
  const r = loadConfigText(text, '/cfg/gateway.yaml', {});
  if (r.ok) throw new Error('expected problems, got a valid config');
  return r.problems.map((p) => `${p.line}:${p.col} ${p.path} ${p.message}`);
}

describe('guardrails in gateway.yaml', () => {
  it('loads a valid guardrail with its defaults, and the default pipeline runs them before the cache', () => {
    const r = loadConfigText(`${BASE}guardrails:\n  - id: pii\n    apply_to: { default: true }\n    check: { type: pii }\n`, '/cfg/gateway.yaml', {});
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.config.guardrails[0]).toMatchObject({ id: 'pii', name: 'pii', stage: 'input', action: 'block', check: { type: 'pii', kinds: ['email', 'phone', 'card', 'iban', 'ip'] } });
    const names = r.config.pipeline.map((e) => e.name);
    expect(names.indexOf('guardrails')).toBe(names.indexOf('cache') - 1);
  });

  it('refuses a field its check type does not have, naming the fields it has', () => {
    const text = `${BASE}guardrails:\n  - id: b\n    apply_to: { default: true }\n    check: { type: webhook, url: 'http://h/x', timeut_ms: 5, patterns: [x] }\n`;
    expect(lines(text)).toEqual([
      '11:48 guardrails[0].check.timeut_ms is not a known field (known here: type, url, timeout_ms, fail, headers)',
      '11:62 guardrails[0].check.patterns is not a known field (known here: type, url, timeout_ms, fail, headers)',
    ]);
  });

  it('refuses what the schema cannot see, with the line of each problem', () => {
    const text = `${BASE}guardrails:
  - id: a
    apply_to: { models: [nope] }
    check: { type: regex, patterns: ['(open'] }
  - id: b
    action: redact
    apply_to: { default: true }
    check: { type: webhook, url: 'http://h/x' }
  - id: c
    check: { type: size }
`;
    expect(lines(text)).toEqual([
      expect.stringMatching(/^10:26 guardrails\[0\]\.apply_to\.models\[0\] names model "nope", which is not declared$/),
      expect.stringMatching(/^11:38 guardrails\[0\]\.check\.patterns\[0\] is not a valid regular expression/),
      expect.stringMatching(/^13:13 guardrails\[1\]\.action cannot be redact for a webhook check/),
      expect.stringMatching(/^16:5 guardrails\[2\] applies to nothing/),
      expect.stringMatching(/^17:12 guardrails\[2\]\.check needs max_tokens or max_chars$/),
    ]);
  });

  it('refuses guardrails an explicit pipeline would never run', () => {
    const text = `${BASE}guardrails:\n  - id: pii\n    apply_to: { default: true }\n    check: { type: pii }\npipeline: [log, auth, route, upstream]\n`;
    expect(lines(text)).toEqual([expect.stringMatching(/^\d+:\d+ pipeline has no enabled `guardrails` step/)]);
  });
});
