/**
 * One playground call: the request body from the form, the streamed chat completion read as it
 * arrives (server-sent events), and its figures: time to first token and total as the browser
 * saw them, tokens from the final usage chunk, cost from the call's log entry (the gateway's own
 * price at call time; the log queue writes it a moment after the answer ends).
 */
import { api } from '../api.ts';
import type { LogDetail } from '../types.ts';

export interface Params {
  system: string;
  temperature: string;
  top_p: string;
  max_tokens: string;
}

export const DEFAULT_PARAMS: Params = { system: '', temperature: '', top_p: '', max_tokens: '' };

export interface Message {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The chat completions body: parameters left empty are left out (the model's defaults apply). */
export function requestBody(model: string, params: Params, messages: Message[], stream: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages: params.system.trim() ? [{ role: 'system', content: params.system }, ...messages] : messages };
  for (const name of ['temperature', 'top_p', 'max_tokens'] as const) {
    const text = params[name].trim();
    if (text !== '') body[name] = Number.isNaN(Number(text)) ? text : Number(text);
  }
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

export interface Answer {
  text: string;
  done: boolean;
  error: string | null;
  ttftMs: number | null;
  totalMs: number | null;
  usage: { prompt_tokens: number; completion_tokens: number } | null;
  cost: { total: number; currency: string } | null;
  /** The log entry's id (the x-request-id answer header). */
  logId: string | null;
}

export const EMPTY_ANSWER: Answer = { text: '', done: false, error: null, ttftMs: null, totalMs: null, usage: null, cost: null, logId: null };

interface Chunk {
  choices?: Array<{ delta?: { content?: string | null } }>;
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  error?: { message?: string };
}

/** Streams one answer, calling `update` with the answer so far after every event. */
export async function streamAnswer(body: Record<string, unknown>, isAdmin: boolean, update: (answer: Answer) => void, signal: AbortSignal): Promise<void> {
  let answer: Answer = { ...EMPTY_ANSWER };
  const set = (change: Partial<Answer>) => update((answer = { ...answer, ...change }));
  const started = performance.now();
  try {
    const response = await api.raw('POST', '/api/v1/chat/completions', body);
    set({ logId: response.headers.get('x-request-id') });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    signal.addEventListener('abort', () => void reader.cancel(), { once: true });
    if (signal.aborted) await reader.cancel(); // Stop pressed while the answer's headers were on their way
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      const events = buffer.split(/\r?\n\r?\n/);
      buffer = events.pop() ?? '';
      for (const event of events) {
        const data = event.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n');
        if (!data || data === '[DONE]') continue;
        const chunk = JSON.parse(data) as Chunk;
        if (chunk.error) set({ error: chunk.error.message ?? 'The stream ended with an error.' });
        const piece = chunk.choices?.[0]?.delta?.content;
        if (piece) set({ text: answer.text + piece, ttftMs: answer.ttftMs ?? Math.round(performance.now() - started) });
        if (chunk.usage) set({ usage: chunk.usage });
      }
    }
  } catch (error) {
    if (!signal.aborted) set({ error: (error as Error).message });
  }
  set({ done: true, totalMs: Math.round(performance.now() - started) });
  if (answer.logId) set({ cost: await costOf(answer.logId, isAdmin) });
}

/** The call's cost from its log entry, waiting a little for the log queue to write it. */
async function costOf(id: string, isAdmin: boolean): Promise<Answer['cost']> {
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      const entry = await api.get<LogDetail>(`${isAdmin ? '/v1/admin/logs' : '/v1/logs'}/${encodeURIComponent(id)}`);
      return entry.cost ? { total: Number(entry.cost.total), currency: entry.cost.currency } : null;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }
  return null;
}
