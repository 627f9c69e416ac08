import { describe, expect, it } from 'vitest';
import gatewaySchema from '../../schemas/gateway.schema.json' with { type: 'json' };
import { BUILTIN_STEPS, OPTIONAL_STEPS } from '../config/checks.ts';
import { orderProblems } from '../pipeline/order.ts';
import { builtinPlugins } from './index.ts';

describe('built-in steps', () => {
  it('each has a definition under its own name', () => {
    for (const [name, definition] of builtinPlugins) expect(definition.name).toBe(name);
    expect([...builtinPlugins.keys()].sort()).toEqual([...BUILTIN_STEPS, ...OPTIONAL_STEPS].sort());
  });

  it('the published schema lists the same names', () => {
    const names = gatewaySchema.$defs.pipelineEntry.then.enum;
    expect([...names].sort()).toEqual([...BUILTIN_STEPS, ...OPTIONAL_STEPS].sort());
  });

  it('the default order keeps every order rule', () => {
    const entries = BUILTIN_STEPS.map((name) => ({ name, enabled: true, options: {} }));
    expect(orderProblems(entries, (entry) => builtinPlugins.get(entry.name))).toEqual([]);
  });

  it('refuses rate-limit before route, saying where and why', () => {
    const names = ['log', 'auth', 'rate-limit', 'route', 'upstream'];
    const entries = names.map((name) => ({ name, enabled: true, options: {} }));
    expect(orderProblems(entries, (entry) => builtinPlugins.get(entry.name))).toEqual([
      { segments: ['pipeline', 2], message: expect.stringMatching(/^"rate-limit" must run after "route" \(listed at pipeline\[3\]\): provider quotas/) },
    ]);
    // A rule binds only steps that are both there and on.
    entries[3]!.enabled = false;
    expect(orderProblems(entries, (entry) => builtinPlugins.get(entry.name))).toEqual([]);
  });
});
