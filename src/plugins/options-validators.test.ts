import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { PLUGIN_OPTIONS_FILE, pluginOptionsModule } from '../../scripts/generate-validators.ts';
import { validateOptions } from '../pipeline/load-plugin.ts';
import { builtinPlugins } from './index.ts';

it('options-validators.generated.js is what scripts/generate-validators.ts writes from schemas/plugins today (run `npm run generate:validators`)', async () => {
  expect(await readFile(PLUGIN_OPTIONS_FILE, 'utf8')).toBe(await pluginOptionsModule());
});

it('a built-in fills its defaults and refuses a wrong option with its precompiled validator', async () => {
  const rateLimit = builtinPlugins.get('rate-limit')!;
  await expect(validateOptions({ name: 'rate-limit', enabled: true, options: {} }, rateLimit)).resolves.toEqual({
    ok: true,
    options: { default_reserve_tokens: 256, max_reserve_tokens: 32768 },
  });
  await expect(validateOptions({ name: 'rate-limit', enabled: true, options: { max_reserve_tokens: -1 } }, rateLimit)).resolves.toMatchObject({
    ok: false,
    errors: [{ instancePath: '/max_reserve_tokens', message: 'must be >= 0' }],
  });
});
