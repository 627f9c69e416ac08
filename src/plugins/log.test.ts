import { describe, expect, it } from 'vitest';
import { testRuntime, testConfig } from '../pipeline/test-context.ts';
import { modelLabel } from './log.ts';

describe('the model label of the metrics', () => {
  const snapshot = testRuntime(
    testConfig(`
providers:
  - { id: listed, type: compat, endpoint: "http://127.0.0.1:9/v1", models: [gpt-4o] }
  - { id: open, type: compat, endpoint: "http://127.0.0.1:9/v1" }
models:
  - { id: house, provider: listed }
`),
  ).current();

  it('keeps configured models and the models a provider lists', () => {
    expect(modelLabel(snapshot, 'house')).toBe('house');
    expect(modelLabel(snapshot, 'listed/gpt-4o')).toBe('listed/gpt-4o');
  });

  it('folds any other name into one value per provider, or (unknown): clients cannot mint series', () => {
    expect(modelLabel(snapshot, 'open/anything-1')).toBe('open/(other)');
    expect(modelLabel(snapshot, 'open/anything-2')).toBe('open/(other)');
    expect(modelLabel(snapshot, 'listed/not-listed')).toBe('listed/(other)');
    expect(modelLabel(snapshot, 'nowhere/x')).toBe('(unknown)');
    expect(modelLabel(snapshot, 'plain-unknown')).toBe('(unknown)');
  });
});
