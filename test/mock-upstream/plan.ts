/**
 * What the mock answers, independent of the wire format: echo the last user text, call the
 * first tool when tools are offered, report a tool result back, and continue an assistant
 * prefix (prefill) when the request ends with one.
 */
import type { Behavior } from './behavior.ts';

/** A request reduced to what the mock's answer depends on. */
export interface Normalized {
  model: string;
  stream: boolean;
  lastUser: string;
  images: number;
  tools: string[];
  /** The content of the last tool result, when the conversation ends with one. */
  toolResult?: string;
  /** Trailing assistant text to continue (prefill). */
  prefix?: string;
  /** Stop sequences: the answer ends before the first one it contains. */
  stop?: string[];
  /** The completion limit: the answer is cut to this many words. */
  maxTokens?: number;
  /** Thinking asked for (vendor_b): the answer starts with a signed thinking block. */
  thinking?: boolean;
}

export interface Plan {
  text: string;
  /** Why a text answer ended: its end, a stop sequence (`stopSequence`), or the completion limit. */
  finish?: 'stop' | 'stop_sequence' | 'length';
  stopSequence?: string;
  /** The reasoning of a thinking answer, and its signature. */
  thinking?: { text: string; signature: string };
  toolCall?: { id: string; name: string; arguments: string };
  usage: { prompt: number; completion: number };
}

/** Rough token count: words, enough for usage figures that add up. */
export const countTokens = (text: string) => (text.trim() ? text.trim().split(/\s+/).length : 0);

export function planAnswer(request: Normalized, behavior: Behavior, counter: number): Plan {
  const prompt = countTokens(request.lastUser);
  if (request.toolResult === undefined && request.tools.length && behavior.reply === undefined) {
    const args = JSON.stringify({ city: request.lastUser });
    const plan: Plan = { text: '', toolCall: { id: `call_mock${counter}`, name: request.tools[0], arguments: args }, usage: { prompt, completion: 5 } };
    if (request.thinking) plan.thinking = { text: `Thinking about: ${request.lastUser}`, signature: `sig-mock${counter}` };
    return plan;
  }
  let text = behavior.reply ?? (request.toolResult !== undefined ? `Tool said: ${request.toolResult}` : `Echo: ${request.lastUser}`);
  if (request.images && behavior.reply === undefined && request.toolResult === undefined) text += ` (+${request.images} image)`;
  // Prefill: answer only what follows the prefix, as a real model continuing it would.
  if (request.prefix && text.startsWith(request.prefix)) text = text.slice(request.prefix.length);
  const plan: Plan = { text, usage: { prompt, completion: countTokens(text) } };
  const stopAt = (request.stop ?? []).map((s) => ({ s, at: text.indexOf(s) })).filter((x) => x.at >= 0).sort((a, b) => a.at - b.at)[0];
  if (stopAt) Object.assign(plan, { text: text.slice(0, stopAt.at), finish: 'stop_sequence', stopSequence: stopAt.s });
  if (request.maxTokens !== undefined && countTokens(plan.text) > request.maxTokens) {
    plan.text = plan.text.split(/(?<= )/).slice(0, request.maxTokens).join('');
    plan.finish = 'length';
  }
  plan.usage.completion = countTokens(plan.text);
  if (request.thinking) plan.thinking = { text: `Thinking about: ${request.lastUser}`, signature: `sig-mock${counter}` };
  return plan;
}

/** Split a text into the stream's content pieces (words with their trailing space). */
export const piecesOf = (text: string) => text.split(/(?<= )/).filter(Boolean);
