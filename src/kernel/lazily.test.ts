import { describe, expect, it, vi } from 'vitest';
import { lazily } from './lazily.ts';

describe('lazily', () => {
  it('builds on the first call only, and shares the value', async () => {
    const build = vi.fn(async () => ({ id: 1 }));
    const get = lazily(build);
    expect(build).not.toHaveBeenCalled();
    const [a, b] = await Promise.all([get(), get()]);
    expect(a).toBe(b);
    expect(await get()).toBe(a);
    expect(build).toHaveBeenCalledOnce();
  });

  it('tries a failed build again on the next call', async () => {
    const build = vi.fn().mockRejectedValueOnce(new Error('not yet')).mockResolvedValue('ok');
    const get = lazily(build);
    await expect(get()).rejects.toThrow('not yet');
    expect(await get()).toBe('ok');
    expect(build).toHaveBeenCalledTimes(2);
  });
});
