/** A logged chat call as the playground's form: model, parameters, earlier messages and the last question. */
import { DEFAULT_PARAMS, type Message, type Params } from './playground-call.ts';
import type { LogDetail } from '../types.ts';

interface LoggedChat {
  model?: unknown;
  messages?: unknown;
  temperature?: unknown;
  top_p?: unknown;
  max_tokens?: unknown;
  max_completion_tokens?: unknown;
}

/** Text of a message's content: a string, or the text parts of a parts array. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (part && typeof part === 'object' && typeof part.text === 'string' ? part.text : '')).join('');
  return '';
}

/** The chat request a log entry kept, when it kept one with messages; else null. */
export function loggedChatRequest(entry: LogDetail): Record<string, unknown> | null {
  // A Messages or generateContent body has another shape: it is no chat completions call to replay.
  if (entry.endpoint !== undefined && entry.endpoint !== 'chat') return null;
  const request = entry.request as LoggedChat | null;
  return request && typeof request === 'object' && Array.isArray(request.messages) ? (request as Record<string, unknown>) : null;
}

export function fromLoggedRequest(entry: LogDetail): { model: string; params: Params; history: Message[]; message: string } | null {
  const request = loggedChatRequest(entry) as LoggedChat | null;
  if (!request) return null;
  const all = (request.messages as Array<{ role?: unknown; content?: unknown }>).map((m) => ({ role: String(m.role), content: textOf(m.content) }));
  const system = all.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => m.content).join('\n');
  const rest = all.filter((m): m is Message => m.role === 'user' || m.role === 'assistant');
  const lastUser = rest.length && rest[rest.length - 1]!.role === 'user' ? rest.pop()!.content : '';
  const number = (value: unknown) => (typeof value === 'number' ? String(value) : '');
  return {
    model: typeof request.model === 'string' ? request.model : entry.model,
    params: {
      ...DEFAULT_PARAMS,
      system,
      temperature: number(request.temperature),
      top_p: number(request.top_p),
      max_tokens: number(request.max_tokens ?? request.max_completion_tokens),
    },
    history: rest,
    message: lastUser,
  };
}
