/**
 * The language an account reads: its `language` setting (its own, else the gateway's default).
 */
import type { Runtime } from '../pipeline/runtime.ts';
import { languageOf, type Language } from './language.ts';

export async function accountLanguage(runtime: Runtime, accountId: string): Promise<Language> {
  const reader = runtime.services.settings;
  const defaults = runtime.current().config.settings;
  const settings = reader ? await reader.get(accountId, defaults) : defaults;
  return languageOf(settings.account.language);
}
