/**
 * gateway.yaml's `guardrails:` as runnable guardrails, built once per config snapshot (the
 * first request on a snapshot builds it; a reload brings a new snapshot, so a new set), and the
 * ones that apply to a request: `apply_to.default`, or its model, the caller's group or key.
 */
import type { GuardrailCheckConfig, GuardrailConfig } from '../../config/types.ts';
import type { Snapshot } from '../../config/snapshot.ts';
import type { GatewayContext } from '../../pipeline/context.ts';
import { jsonJudge } from './checks/json-answer.ts';
import { moderationJudge } from './checks/moderation.ts';
import { regexScanner, wordsScanner } from './checks/patterns.ts';
import { piiScanner } from './checks/pii.ts';
import { secretsScanner } from './checks/secrets.ts';
import { sizeJudge } from './checks/size.ts';
import { webhookJudge } from './checks/webhook.ts';
import type { Check, Guardrail, Stage } from './types.ts';

interface Attached {
  guardrail: Guardrail;
  everyone: boolean;
  models: ReadonlySet<string>;
  groups: ReadonlySet<string>;
  keys: ReadonlySet<string>;
}

/** The snapshot's guardrails; empty when it declares none (the step then costs one lookup). */
export interface GuardrailSet {
  readonly all: readonly Attached[];
}

const EMPTY: GuardrailSet = { all: [] };
const built = new WeakMap<Snapshot, GuardrailSet>();

export function guardrailsOf(snapshot: Snapshot): GuardrailSet {
  const declared = snapshot.config.guardrails;
  if (!declared?.length) return EMPTY;
  let set = built.get(snapshot);
  if (!set) built.set(snapshot, (set = { all: declared.map(attach) }));
  return set;
}

function attach(config: GuardrailConfig): Attached {
  const stages = new Set<Stage>(config.stage === 'both' ? ['input', 'output'] : [config.stage]);
  return {
    guardrail: { name: config.id, type: config.check.type, stages, action: config.action, check: buildCheck(config.id, config.check) },
    everyone: config.apply_to.default,
    models: new Set(config.apply_to.models),
    groups: new Set(config.apply_to.groups),
    keys: new Set(config.apply_to.keys),
  };
}

/** The check a config describes. Throws on what config checks refuse first (a bad pattern). */
export function buildCheck(name: string, check: GuardrailCheckConfig): Check {
  switch (check.type) {
    case 'regex':
      return regexScanner(check.patterns, check.category);
    case 'words':
      return wordsScanner(check.words, check.category);
    case 'pii':
      return piiScanner(check.kinds, check.regions);
    case 'secrets':
      return secretsScanner(check.kinds);
    case 'size':
      return sizeJudge(check);
    case 'json':
      return jsonJudge(check);
    case 'webhook':
      return webhookJudge(name, check);
    case 'moderation':
      return moderationJudge(check);
  }
}

/** The guardrails of `stage` that apply to this request, in the order gateway.yaml lists them. */
export function applicable(set: GuardrailSet, ctx: GatewayContext, stage: Stage): Guardrail[] {
  const found: Guardrail[] = [];
  const model = ctx.body.model;
  const group = ctx.principal?.groupId;
  const key = ctx.principal?.key?.id;
  for (const entry of set.all) {
    if (!entry.guardrail.stages.has(stage)) continue;
    if (entry.everyone || (model !== undefined && entry.models.has(model)) || (group !== undefined && entry.groups.has(group)) || (key !== undefined && entry.keys.has(key))) {
      found.push(entry.guardrail);
    }
  }
  return found;
}
