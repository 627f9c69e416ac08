/**
 * Management write-back: every change made through the API is an edit of gateway.yaml through the
 * yaml Document API (comments and untouched text kept, see yaml-splice.ts), validated exactly as a
 * hand edit would be, written atomically, and applied at once by a reload. One writer at a time
 * per file; the hot-reload watcher is told about the gateway's own write so it does not apply it
 * twice. Secrets go to the secrets file beside the config (mode 0600), never into the YAML.
 *
 * With instances sharing Redis, one writer at a time in the whole cluster: a change holds a lease
 * in the state store (lease.ts), first brings this instance's file up to the latest shared version
 * (shared-versions.ts), then edits, writes and publishes the next version. Without Redis nothing
 * of this runs.
 *
 * A write costs the same however many items the file holds: the writer remembers the file as it
 * last parsed or wrote it (parsed-config.ts), edits a window of a few items (item-window.ts),
 * validates the edited data without parsing the file again, and hands the loaded config to the
 * reload. When the file on disk is not the remembered text (edited by hand meanwhile), or the
 * change is not a single item edit, the whole file is parsed, edited and loaded as before.
 *
 * What the API may add is bounded in bytes, per account and for the file (write-bounds.ts).
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { parseDocument, type Document } from 'yaml';
import { loadConfigData, loadConfigText, type LoadResult } from '../load.ts';
import type { GatewayConfig } from '../types.ts';
import { holdRevocations, revokedBetween } from './revocations.ts';
import { readSecrets, secretsPathFor, type Secrets } from '../secrets.ts';
import { conflict, internalError, invalidValue } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { Snapshot } from '../snapshot.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { leaseBusy, withLease, type Lease } from './lease.ts';
import { serialize } from './mutex.ts';
import type { ChangeMessage, WriteTarget } from './write-types.ts';
import { CONFIG_CHANNEL, trackSharedVersions, type SharedVersions } from './shared-versions.ts';
import { editDocument, recordEdits, type ItemEdit, type ItemEditor } from './item-edits.ts';
import { editWindow } from './item-window.ts';
import { holdsItem, parseConfig, type ParsedConfig } from './parsed-config.ts';
import { renderEdited } from './yaml-splice.ts';
import { indexOf } from './yaml-edit.ts';
import { assertWriteBounds } from './write-bounds.ts';

export type { ChangeMessage, WriteTarget } from './write-types.ts';

export { CONFIG_CHANNEL } from './shared-versions.ts';

/** The cluster-wide write lease (the store adds its prefix). */
export const CONFIG_LEASE = 'gw:lock:config';

/** What an edit works on: the file's list items, the secrets (mutable), and the snapshot in force. */
export interface Draft {
  items: ItemEditor;
  secrets: Secrets;
  snapshot: Snapshot;
}

const kVersions = Symbol('sharedVersions');

export interface ConfigWriter {
  /**
   * Runs `edit` on the current file, then writes, reloads and publishes. Resolves with `edit`'s
   * result once the new config is in force. Throws 409 when write-back is off or the file is
   * read-only (a ConfigMap), 400 when the edited
   * file would not load (nothing is written then).
   */
  change<T>(edit: (draft: Draft) => T | Promise<T>): Promise<T>;
  /** Identifies this instance in published messages. */
  readonly instanceId: string;
  /** Where this instance stands among the shared versions: what its follower applies from. */
  readonly [kVersions]?: SharedVersions;
}

const WRITE_BACK_OFF =
  'Configuration changes through the API are disabled (management.write_back: false): gateway.yaml is the only source of configuration; edit the file instead.';

const READ_ONLY_CODES = new Set(['EROFS', 'EACCES', 'EPERM']);

/** The 409 for a config file this process cannot replace (a Kubernetes ConfigMap, a `:ro` volume). */
const readOnly = (configFile: string) =>
  conflict(
    `${basename(configFile)} is read-only here (${configFile}, mounted read-only, e.g. from a Kubernetes ConfigMap), so changes through the API cannot be saved. ` +
      'Change the file at its source instead (commit it to git and let the ConfigMap roll out; the gateway reloads it), ' +
      'or mount it from a writable volume to allow API changes.',
    'config_read_only',
  );

/** Throws the 409 unless both the file and its directory (the atomic write's temp file goes there) are writable. */
async function assertWritable(configFile: string): Promise<void> {
  try {
    await access(dirname(configFile), constants.W_OK);
    await access(configFile, constants.W_OK);
  } catch (error) {
    if (READ_ONLY_CODES.has((error as NodeJS.ErrnoException).code ?? '')) throw readOnly(configFile);
    throw error;
  }
}

export function createConfigWriter(target: WriteTarget, logger: Logger): ConfigWriter {
  const { config: holder, store } = target;
  const instanceId = randomUUID();
  const file = () => holder.file;
  const versions = trackSharedVersions(target, instanceId, logger);

  async function write(configFile: string, text: string, secrets: Secrets | null): Promise<void> {
    if (secrets) await writeFileAtomic(secretsPathFor(configFile), `${JSON.stringify(secrets, null, 2)}\n`, 0o600);
    const mode = await stat(configFile).then((s) => s.mode & 0o777, () => 0o644);
    holder.watcher?.ignoreNextContent(text);
    await writeFileAtomic(configFile, text, mode);
  }

  async function reload(loaded: GatewayConfig): Promise<void> {
    const status = await holder.reload(loaded);
    if (!status.ok) {
      logger.error('management change written but not applied', { error: status.error });
      throw internalError(new Error(status.error ?? 'reload failed'));
    }
  }

  /** The file as last parsed or written by this writer (null parse: not editable piecewise). */
  let memory: { text: string; parsed: ParsedConfig | null } | null = null;

  function remembered(text: string): ParsedConfig | null {
    if (memory?.text !== text) memory = { text, parsed: parseConfig(text) };
    return memory.parsed;
  }

  /**
   * The edited text and its load. One item edit on a remembered file is applied to a window and
   * loaded from data; anything else, or anything that path cannot decide (a refusal included,
   * whose problems only the full load can locate), parses and loads the whole edited file.
   */
  function applyEdits(
    text: string,
    parsed: ParsedConfig | null,
    doc: Document | null,
    edits: readonly ItemEdit[],
    secrets: Secrets,
  ): { next: string; loaded: LoadResult; state: ParsedConfig | null } {
    const state = parsed && edits.length <= 1 ? (edits[0] ? editWindow(parsed, edits[0]) : parsed) : null;
    const config = state ? loadConfigData(state.raw, holder.env, secrets) : null;
    if (state && config) return { next: state.text, loaded: { ok: true, config, file: file() }, state };
    const next = state?.text ?? renderEdited(text, edited(doc ?? parseDocument(text), edits));
    return { next, loaded: loadConfigText(next, file(), holder.env, secrets), state };
  }

  function edited(doc: Document, edits: readonly ItemEdit[]): Document {
    editDocument(doc, edits);
    return doc;
  }

  /**
   * Runs `edit` on the file and applies the result. `shared` (with Redis): the lease held and the
   * number of the shared version the file now holds; the lease is confirmed before the file is
   * written, and the result is published as the next version.
   */
  async function apply<T>(configFile: string, edit: (draft: Draft) => T | Promise<T>, shared: { lease: Lease; base: number } | null): Promise<T> {
    const snapshot = holder.current().snapshot;
    if (!snapshot.config.management.write_back) throw conflict(WRITE_BACK_OFF, 'write_back_disabled');
    const text = await readFile(configFile, 'utf8');
    const parsed = remembered(text);
    // Without a remembered parse, the whole document is parsed now and edited after `edit`.
    const doc = parsed ? null : parseDocument(text);
    const before = await readSecrets(secretsPathFor(configFile));
    const items = recordEdits((collection, id) => (parsed ? holdsItem(parsed, collection, id) : indexOf(doc!, collection, id) >= 0));
    const draft: Draft = { items, secrets: { ...before }, snapshot };
    const result = await edit(draft);
    const secretsChanged = JSON.stringify(draft.secrets) !== JSON.stringify(before);
    const { next, loaded, state } = applyEdits(text, parsed, doc, items.edits, draft.secrets);
    if (!loaded.ok) {
      const first = loaded.problems[0];
      throw invalidValue(`The change would make the configuration invalid: ${loaded.problems.map((p) => `${p.path} ${p.message}`).join('; ')}`, first?.path ?? null);
    }
    assertWriteBounds(snapshot.config, loaded.config, items.edits, text, next);
    if (next === text && !secretsChanged) return result;
    await assertWritable(configFile);
    // A holder that stalled past its lease may have been overtaken: it must not write over that.
    if (shared && !(await shared.lease.confirm())) throw leaseBusy('the configuration');
    await write(configFile, next, secretsChanged ? draft.secrets : null).catch((error: NodeJS.ErrnoException) => {
      throw READ_ONLY_CODES.has(error.code ?? '') ? readOnly(configFile) : error;
    });
    // Compared with the file's content at every change, so an outside edit is never lost.
    memory = state ? { text: next, parsed: state } : null;
    await reload(loaded.config);
    // Other instances learn of the change within a second; a publish failure must not undo it.
    if (shared) await versions.publish(shared.base, { text: next, secrets: draft.secrets }, revokedBetween(snapshot.config.keys, loaded.config.keys));
    return result;
  }

  return {
    instanceId,
    [kVersions]: versions,
    change(edit) {
      const configFile = file();
      return serialize(configFile, async () => {
        // Checked before the lease too: an instance with write-back off takes in no shared version.
        if (!holder.current().snapshot.config.management.write_back) throw conflict(WRITE_BACK_OFF, 'write_back_disabled');
        if (store.kind !== 'redis') return apply(configFile, edit, null);
        return withLease(store, CONFIG_LEASE, async (lease) => {
          // The edit starts from the latest shared version, so no other instance's change is lost.
          const { seq } = await versions.catchUp();
          return apply(configFile, edit, { lease, base: seq });
        }, { what: 'the configuration' });
      });
    },
  };
}

/**
 * Applies changes published by other instances: a version newer than the one this instance has is
 * brought in (shared-versions.ts `catchUp`: a shared file is only reloaded; otherwise this
 * instance's own copy of the file and secrets is rewritten from the sealed content, then
 * reloaded). Returns the unsubscribe function.
 */
export async function followConfigChanges(target: WriteTarget, writer: ConfigWriter, logger: Logger): Promise<() => Promise<void>> {
  const { config: holder, store } = target;
  const versions = writer[kVersions];
  if (!versions) throw new TypeError('followConfigChanges needs a writer made by createConfigWriter');
  return store.subscribe(CONFIG_CHANNEL, (raw) => {
    let message: ChangeMessage;
    try {
      message = JSON.parse(raw) as ChangeMessage;
    } catch {
      return;
    }
    if (message.origin === writer.instanceId || typeof message.version !== 'string') return;
    const applied = serialize(holder.file, async () => {
      if (!holder.current().snapshot.config.management.write_back) {
        logger.warn('ignoring a config change from another instance: management.write_back is false here');
        return false;
      }
      // Already in force here (brought in by a write of this instance, or by a later message).
      if (typeof message.seq === 'number' && message.seq <= versions.applied) return true;
      return (await versions.catchUp()).ok;
    });
    if (Array.isArray(message.revoked)) holdRevocations(store, message.revoked.filter((h) => typeof h === 'string'), applied);
    applied.catch((error: unknown) => logger.error('could not apply config change from another instance', { error: String(error) }));
  });
}
