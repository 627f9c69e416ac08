/** The pieces each wire format of the mock provides to the shared request loop in server.ts. */
import type { IncomingHttpHeaders } from 'node:http';
import type { Normalized, Plan } from './plan.ts';

export interface StreamWriter {
  start(): void;
  text(piece: string): void;
  tool(call: NonNullable<Plan['toolCall']>): void;
  finish(reason: FinishReason): void;
  /** The format's own end marker (none for generateContent). */
  end(): void;
}

/** Why the answer ended, as the shared loop tells the writer. */
export type FinishReason = 'stop' | 'tool_calls' | 'stop_sequence' | 'length';

/** `send(event, data)`: one SSE frame; `data` is JSON-encoded unless it is a string. */
export type Send = (event: string | null, data: unknown) => void;

export interface Format {
  name: string;
  /** undefined: not this format; null: matches, model in the body; string: the model from the path. */
  match(path: string): string | null | undefined;
  /** An error message when the auth headers this format expects are missing. */
  checkAuth(headers: IncomingHttpHeaders, url: URL): string | null;
  normalize(body: any, url: URL, model: string | null): Normalized;
  errorBody(status: number, message: string, retryAfter?: string): unknown;
  json(plan: Plan, request: Normalized, id: string): unknown;
  writer(send: Send, request: Normalized, plan: Plan, id: string, body: any): StreamWriter;
}
