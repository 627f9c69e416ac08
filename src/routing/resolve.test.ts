import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../config/snapshot.ts';
import { testConfig } from '../pipeline/test-context.ts';
import { resolveModel, weightedOrder } from './resolve.ts';

const snapshot = buildSnapshot(
  testConfig(`
providers:
  - { id: a, type: compat, endpoint: http://a/v1, models: [m1, m2] }
  - { id: b, type: compat, endpoint: http://b/v1, models: [m1] }
  - { id: off, type: compat, endpoint: http://off/v1, models: [m1], status: inactive }
models:
  - { id: alias, provider: a, upstream_model: m2 }
  - { id: pooled, provider: a, upstream_model: m1, weight: 3, deployments: [{ provider: b, weight: 1 }, { provider: off }] }
  - { id: retired, provider: a, upstream_model: m9, status: inactive }
  - { id: on-off, provider: off, upstream_model: m1 }
  - { id: own-url, provider: a, upstream_model: m1, endpoint: http://dedicated/v1 }
`),
  '/x',
  1,
);

describe('resolveModel', () => {
  it('prefers an exact model-config id and sends its upstream_model', () => {
    const [target] = resolveModel(snapshot, 'alias');
    expect(target).toMatchObject({ upstreamModel: 'm2', requestedAs: 'alias', provider: { id: 'a' }, model: { id: 'alias' } });
  });

  it('resolves provider/model when the provider lists the model, splitting at the first slash', () => {
    expect(resolveModel(snapshot, 'a/m1')[0]).toMatchObject({ upstreamModel: 'm1', requestedAs: 'a/m1' });
    expect(resolveModel(snapshot, 'a/m2')[0].model?.id).toBe('alias'); // a model config names it: its prices apply
    expect(resolveModel(snapshot, 'a/unknown')).toEqual([]);
    expect(resolveModel(snapshot, 'a/m1/extra')).toEqual([]);
  });

  it('refuses inactive models and inactive providers', () => {
    expect(resolveModel(snapshot, 'retired')).toEqual([]);
    expect(resolveModel(snapshot, 'a/m9')).toEqual([]);
    expect(resolveModel(snapshot, 'off/m1')).toEqual([]);
    expect(resolveModel(snapshot, 'on-off')).toEqual([]);
    expect(resolveModel(snapshot, 'nope')).toEqual([]);
  });

  it('expands weighted deployments, skipping inactive providers', () => {
    const providers = resolveModel(snapshot, 'pooled', () => 0).map((t) => t.provider.id);
    expect(providers).toEqual(['a', 'b']);
    expect(resolveModel(snapshot, 'pooled', () => 0.99).map((t) => t.provider.id)).toEqual(['b', 'a']);
  });
});

it('a model endpoint overrides its provider base URL, for that model only', () => {
  expect(resolveModel(snapshot, 'own-url')[0].provider).toMatchObject({ id: 'a', endpoint: 'http://dedicated/v1' });
  expect(resolveModel(snapshot, 'alias')[0].provider.endpoint).toBe('http://a/v1');
  expect(snapshot.providers.get('a')!.endpoint).toBe('http://a/v1');
});

describe('weightedOrder', () => {
  it('puts heavier items first in proportion to their weight', () => {
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const firsts = { x: 0, y: 0 };
    for (let i = 0; i < 4000; i++) firsts[weightedOrder([{ id: 'x', weight: 3 }, { id: 'y', weight: 1 }], random)[0].id as 'x' | 'y']++;
    expect(firsts.x / 4000).toBeGreaterThan(0.7);
    expect(firsts.x / 4000).toBeLessThan(0.8);
  });
});
