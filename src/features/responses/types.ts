/**
 * The responses interface shapes (spec 4.11 request, 2.10 object) as far as the gateway reads
 * or writes them.
 */
export interface ResponsesPart {
  type: string;
  text?: string;
  refusal?: string;
  image_url?: string;
  detail?: string;
}

export interface ResponsesInputItem {
  type?: 'message' | 'function_call' | 'function_call_output' | 'reasoning' | string;
  role?: 'system' | 'developer' | 'user' | 'assistant';
  content?: string | ResponsesPart[];
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: unknown;
}

export interface ResponsesTool {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
}

export interface ResponsesRequest {
  model?: string;
  input: string | ResponsesInputItem[];
  instructions?: string | null;
  previous_response_id?: string | null;
  fallbacks?: string[];
  stream?: boolean;
  background?: boolean;
  temperature?: number;
  top_p?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  max_tokens?: number;
  max_output_tokens?: number;
  metadata?: Record<string, string>;
  parallel_tool_calls?: boolean;
  tool_choice?: 'none' | 'auto' | 'required' | { type: 'function'; name: string };
  tools?: ResponsesTool[];
  text?: { format?: { type: 'text' | 'json_object' | 'json_schema'; name?: string; schema?: unknown; strict?: boolean | null }; verbosity?: string | null };
  user?: string;
  stop?: string | string[] | null;
  reasoning?: { effort?: string | null; summary?: string | null } | null;
  prompt_cache_key?: string;
  prompt_cache_retention?: string | null;
  safety_identifier?: string;
  service_tier?: string | null;
}

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

export interface MessageItem {
  type: 'message';
  id: string;
  status: 'in_progress' | 'completed' | 'incomplete';
  role: 'assistant';
  content: OutputText[];
}

export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: 'in_progress' | 'completed' | 'incomplete';
}

export type OutputItem = MessageItem | FunctionCallItem;

export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'incomplete' | 'failed' | 'cancelled';

/** Spec 2.10 (plus the OpenAI fields the SDK reads). */
export interface ResponseObject {
  id: string;
  object: 'response';
  status: ResponseStatus;
  created_at: number;
  completed_at: number | null;
  background: boolean;
  /** Whether the response is kept for GET and previous_response_id (store.ts storesResponse). */
  store: boolean;
  model: string;
  error: { code: string | null; message: string; type?: string } | null;
  incomplete_details: { reason: string } | null;
  instructions: Array<{ role: string; content: string }>;
  metadata: Record<string, string>;
  temperature: number;
  top_p: number;
  frequency_penalty: number;
  presence_penalty: number;
  max_output_tokens: number | null;
  parallel_tool_calls: boolean;
  tool_choice: unknown;
  tools: unknown[];
  text: { format: unknown };
  user: string | null;
  output: OutputItem[];
  usage: ResponseUsage | null;
  [key: string]: unknown;
}

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}
