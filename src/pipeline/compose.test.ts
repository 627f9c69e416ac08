import { describe, expect, it } from 'vitest';
import { compose } from './compose.ts';
import { createTestContext } from './test-context.ts';
import type { Step } from './types.ts';

describe('compose', () => {
  it('runs steps in order and unwinds in reverse', async () => {
    const order: string[] = [];
    const step = (name: string): Step => async (_ctx, next) => {
      order.push(`${name}>`);
      const response = await next();
      order.push(`<${name}`);
      return response;
    };
    const run = compose([step('a'), step('b')], async () => {
      order.push('terminal');
      return new Response('ok');
    });
    expect(await (await run(createTestContext())).text()).toBe('ok');
    expect(order).toEqual(['a>', 'b>', 'terminal', '<b', '<a']);
  });

  it('lets a step short-circuit without calling next', async () => {
    let reached = false;
    const run = compose([async () => new Response('cached', { status: 203 })], async () => {
      reached = true;
      return new Response('upstream');
    });
    expect((await run(createTestContext())).status).toBe(203);
    expect(reached).toBe(false);
  });

  it('rejects a second call of next()', async () => {
    const run = compose([async (_ctx, next) => {
      await next();
      return next();
    }], async () => new Response('x'));
    await expect(run(createTestContext())).rejects.toThrow('next() called more than once');
  });

  it('turns a synchronous throw into a rejection', async () => {
    const run = compose([(() => {
      throw new Error('sync');
    }) as unknown as Step], async () => new Response('x'));
    await expect(run(createTestContext())).rejects.toThrow('sync');
  });
});
