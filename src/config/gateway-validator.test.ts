import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { CONFIG_VALIDATOR_FILE, configValidatorModule } from '../../scripts/generate-validators.ts';

it('gateway-validator.generated.js is what scripts/generate-validators.ts writes from the schema today (run `npm run generate:validators`)', async () => {
  expect(await readFile(CONFIG_VALIDATOR_FILE, 'utf8')).toBe(await configValidatorModule());
});
