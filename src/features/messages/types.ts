/** The Messages API shapes the ingress reads and writes (as Anthropic documents them). */

export type Block = { type: string; [key: string]: unknown };

export interface MessageParam {
  role: 'user' | 'assistant';
  content: string | Block[];
}

export interface ToolParam {
  type?: string;
  name: string;
  description?: string;
  input_schema?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: string | Block[];
  tools?: ToolParam[];
  tool_choice?: { type: 'auto' | 'any' | 'tool' | 'none'; name?: string; disable_parallel_tool_use?: boolean };
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  metadata?: { user_id?: string | null };
  thinking?: { type: 'enabled' | 'disabled' | 'adaptive'; budget_tokens?: number };
  stream?: boolean;
  fallbacks?: string[];
  [key: string]: unknown;
}

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  [key: string]: unknown;
}

export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Block[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
  [key: string]: unknown;
}
