/**
 * The compat wire format (also vendor_d, which puts the deployment in the path and wants
 * `api-key` plus `api-version`): `/chat/completions`, JSON or `data:` chunks ending `[DONE]`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Behavior } from './behavior.ts';
import type { Normalized, Plan } from './plan.ts';
import type { Format, StreamWriter } from './format.ts';

function textOf(content: any): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.filter((p: any) => p.type === 'text').map((p: any) => p.text).join(' ');
  return '';
}

export function normalizeChat(body: any, model: string): Normalized {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const last = messages.at(-1);
  const user = [...messages].reverse().find((m) => m.role === 'user');
  const images = Array.isArray(user?.content) ? user.content.filter((p: any) => p.type === 'image_url').length : 0;
  return {
    model,
    stream: body?.stream === true,
    lastUser: textOf(user?.content),
    images,
    tools: (body?.tools ?? []).map((t: any) => t.function?.name),
    toolResult: last?.role === 'tool' ? textOf(last.content) : undefined,
    prefix: last?.role === 'assistant' && !last.tool_calls ? textOf(last.content) : undefined,
    stop: typeof body?.stop === 'string' ? [body.stop] : body?.stop,
    maxTokens: body?.max_completion_tokens ?? body?.max_tokens,
  };
}

/** Does this compat request ask for a continuation the way the upstream (its behaviour) understands? */
export function continuesPrefix(body: any, behavior: Behavior): boolean {
  const last = body?.messages?.at(-1);
  switch (behavior.prefixStyle ?? 'trailing_assistant') {
    case 'continue_final_message':
      return body.continue_final_message === true && body.add_generation_prompt === false;
    case 'prefix':
      return last?.prefix === true;
    default:
      return true;
  }
}

function openaiFormat(name: string, match: (path: string) => string | null | undefined, auth: (h: IncomingHttpHeaders, url: URL) => string | null): Format {
  return {
    name,
    match,
    checkAuth: auth,
    normalize: (body, _url, model) => normalizeChat(body, model ?? String(body?.model ?? '')),
    errorBody: (status, message) => ({ error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: null } }),
    json(plan: Plan, request: Normalized, id: string) {
      const message: any = { role: 'assistant', content: plan.toolCall ? null : plan.text, refusal: null };
      if (plan.toolCall) message.tool_calls = [{ id: plan.toolCall.id, type: 'function', function: { name: plan.toolCall.name, arguments: plan.toolCall.arguments } }];
      return {
        id, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: request.model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: plan.toolCall ? 'tool_calls' : plan.finish === 'length' ? 'length' : 'stop' }],
        usage: { prompt_tokens: plan.usage.prompt, completion_tokens: plan.usage.completion, total_tokens: plan.usage.prompt + plan.usage.completion },
        system_fingerprint: 'fp_mock',
      };
    },
    writer(send, request: Normalized, plan: Plan, id: string, body: any): StreamWriter {
      const created = Math.floor(Date.now() / 1000);
      const includeUsage = body?.stream_options?.include_usage === true;
      const chunk = (delta: object, finish: string | null = null) => ({
        id, object: 'chat.completion.chunk', created, model: request.model,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...(includeUsage ? { usage: null } : {}),
      });
      return {
        start: () => send(null, chunk({ role: 'assistant', content: '', refusal: null })),
        text: (piece) => send(null, chunk({ content: piece })),
        tool(call) {
          send(null, chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
          const half = Math.ceil(call.arguments.length / 2);
          for (const part of [call.arguments.slice(0, half), call.arguments.slice(half)]) send(null, chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] }));
        },
        finish(reason) {
          send(null, chunk({}, reason === 'stop_sequence' ? 'stop' : reason));
          const usage = { prompt_tokens: plan.usage.prompt, completion_tokens: plan.usage.completion, total_tokens: plan.usage.prompt + plan.usage.completion };
          if (includeUsage) send(null, { id, object: 'chat.completion.chunk', created, model: request.model, choices: [], usage });
        },
        end: () => send(null, '[DONE]'),
      };
    },
  };
}

/** Compat upstreams take `Authorization: Bearer`; a keyless one (a local server) gets no header at all. */
function bearer(headers: IncomingHttpHeaders): string | null {
  if (headers['api-key'] || headers['x-api-key'] || headers['x-goog-api-key']) return 'Wrong auth header for this format: send Authorization: Bearer.';
  if (headers.authorization === undefined) return null;
  return /^Bearer \S+/.test(headers.authorization) ? null : 'Malformed bearer token.';
}

export const compatFormat = openaiFormat(
  'compat',
  (path) => (/\/chat\/completions$/.test(path) && !path.includes('/openai/deployments/') ? null : undefined),
  bearer,
);

export const deploymentFormat = openaiFormat(
  'vendor_d',
  (path) => /\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(path)?.[1] ?? undefined,
  (headers, url) => {
    if (!headers['api-key']) return 'Missing api-key header.';
    if (headers.authorization) return 'Deployments take api-key, not a bearer token.';
    return url.searchParams.get('api-version') ? null : 'Missing api-version.';
  },
);
