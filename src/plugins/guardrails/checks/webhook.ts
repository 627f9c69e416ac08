/**
 * An external check: POST `{guardrail, stage, text, context}` as JSON to a URL and read back
 * `{"flagged": boolean, "categories"?: string[]}`. A webhook that is down, slower than
 * `timeout_ms`, answers an error status or anything else than that shape cannot decide: the
 * guardrail's fail mode does (`open` lets the text through, `closed` refuses it), and the
 * gateway's log says which happened and why.
 */
import type { GatewayContext } from '../../../pipeline/context.ts';
import { CheckUnavailable, type Judge, type Stage } from '../types.ts';

export interface WebhookOptions {
  url: string;
  timeout_ms: number;
  fail: 'open' | 'closed';
  headers?: Record<string, string>;
}

export function webhookJudge(name: string, options: WebhookOptions): Judge {
  return {
    kind: 'judge',
    async judge(text, ctx: GatewayContext, stage: Stage) {
      const context = {
        request_id: ctx.id,
        endpoint: ctx.endpoint,
        model: ctx.body.model ?? null,
        account: ctx.principal?.accountId ?? null,
        key: ctx.principal?.key?.id ?? null,
      };
      let response: Response;
      try {
        response = await fetch(options.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...options.headers },
          body: JSON.stringify({ guardrail: name, stage, text, context }),
          signal: AbortSignal.timeout(options.timeout_ms),
        });
      } catch (error) {
        const why = (error as Error).name === 'TimeoutError' ? `no answer within ${options.timeout_ms} ms` : `unreachable (${(error as Error).message})`;
        throw new CheckUnavailable(`webhook ${why}`, options.fail);
      }
      const body = await response.text().catch(() => '');
      if (!response.ok) throw new CheckUnavailable(`webhook answered HTTP ${response.status}`, options.fail);
      return parseVerdict(body, options.fail);
    },
  };
}

function parseVerdict(body: string, fail: 'open' | 'closed') {
  let value: { flagged?: unknown; categories?: unknown };
  try {
    value = JSON.parse(body) as typeof value;
  } catch {
    throw new CheckUnavailable('webhook answered something that is not JSON', fail);
  }
  if (typeof value !== 'object' || value === null || typeof value.flagged !== 'boolean') {
    throw new CheckUnavailable('webhook answer has no boolean `flagged`', fail);
  }
  if (!value.flagged) return { categories: [] };
  const categories = Array.isArray(value.categories) ? value.categories.filter((c): c is string => typeof c === 'string').slice(0, 16) : [];
  return { categories: categories.length ? categories.map((c) => c.slice(0, 64)) : ['flagged'] };
}
