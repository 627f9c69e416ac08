/**
 * The secrets file beside gateway.yaml (`gateway.secrets.json`, mode 0600): credentials given
 * through the management API live there, and the YAML holds `${secret:<name>}` references, so
 * the config file can be shared or committed without them.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export type Secrets = Record<string, string>;

/** `dir/gateway.yaml` -> `dir/gateway.secrets.json` (the config file's stem + `.secrets.json`). */
export function secretsPathFor(configFile: string): string {
  const abs = path.resolve(configFile);
  const stem = path.basename(abs).replace(/\.(ya?ml|json)$/i, '');
  return path.join(path.dirname(abs), `${stem}.secrets.json`);
}

function parse(text: string, file: string): Secrets {
  const data = JSON.parse(text) as unknown;
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new Error(`${file} must hold a JSON object`);
  return Object.fromEntries(Object.entries(data).filter(([, v]) => typeof v === 'string')) as Secrets;
}

/** Reads the secrets file; a missing file is an empty store. */
export async function readSecrets(file: string): Promise<Secrets> {
  try {
    return parse(await readFile(file, 'utf8'), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
}

/** Sync variant for the (sync) config text loader; only used when the text references a secret. */
export function readSecretsSync(file: string): Secrets {
  try {
    return parse(readFileSync(file, 'utf8'), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
}
