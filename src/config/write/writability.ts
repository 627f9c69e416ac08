/**
 * Whether management writes can succeed right now, and if not why, for /v1/system/status: so a
 * console (or a script) can say "read-only" up front instead of failing on the first save.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Runtime } from '../../pipeline/runtime.ts';

export interface Writability {
  writable: boolean;
  /** Why writes are refused; null when they are not. */
  reason: string | null;
}

const canWrite = (path: string) => access(path, constants.W_OK).then(() => true, () => false);

export async function configWritability(runtime: Runtime): Promise<Writability> {
  const { file, config } = runtime.current();
  if (!config.management.write_back) {
    return { writable: false, reason: 'management.write_back is false: gateway.yaml is the only source of configuration.' };
  }
  // Write-back renames a temp file into place, so the folder must be writable as well as the file.
  if (!(await canWrite(file)) || !(await canWrite(dirname(file)))) {
    return { writable: false, reason: `The configuration file ${file} (or its folder) is read-only for the gateway.` };
  }
  return { writable: true, reason: null };
}
