/** Shapes of the management API answers the console reads (spec part 2, README). */

export interface UsageResult {
  data: Array<{ date: string; total_tokens: number; prompt_tokens: number; completion_tokens: number; request_count: number; avg_latency: number }>;
  summary: { total_tokens: number; prompt_tokens: number; completion_tokens: number; request_count: number };
}

export interface CostResult {
  currency?: string;
  data: Array<{ date: string; input_cost: number; output_cost: number; total_cost: number }>;
  summary: { total_input_cost: number; total_output_cost: number; total_cost: number };
}

export interface ModelsResult {
  data: Array<{ model: string; request_count: number; total_tokens: number; cost: number; percentage: number }>;
}

export interface ApiKey {
  id: string;
  name: string;
  key: string;
  status: 'active' | 'inactive';
  permissions: { models: string[]; rate_limit: number; quota_limit?: number; quota_period?: string; expires_at?: string };
  quota_used?: number;
  quota_resets_at?: string | null;
  /** The platform scopes the key is held to (the OAuth token's that created it); null: every scope. */
  scopes: string[] | null;
  usage: { total_requests: number; total_tokens: number };
  account_id: string;
  created_at: string | null;
}

export interface LogItem {
  id: string;
  api_key_id: string | null;
  api_key_name: string | null;
  model: string;
  request_tokens: number;
  response_tokens: number;
  status: 'success' | 'error';
  latency: number;
  ip: string;
  created_at: string;
  // Additive list fields (newer gateways): who, where, how much.
  account_id?: string | null;
  provider?: string | null;
  endpoint?: string;
  error_code?: string | null;
  ttft_ms?: number | null;
  cost?: { input: string | number; output: string | number; total: string | number; currency: string } | null;
}

export interface LogDetail extends LogItem {
  /** The inference interface the call came in through. */
  endpoint: 'chat' | 'responses' | 'embeddings' | 'messages' | 'generate_content';
  request: unknown;
  response: unknown;
  error_code: string | null;
  error_message: string | null;
  user_agent: string | null;
  account_id: string | null;
  group_id: string | null;
  provider: string | null;
  attempts: Array<Record<string, unknown>>;
  /** The guardrails that ran and their verdicts (absent from older gateways). */
  guardrails?: Array<{ guardrail: string; check: string; stage: string; action: string; result: string; categories: string[]; failed?: string }>;
  stream: boolean;
  cache_hit: boolean;
  ttft_ms: number | null;
  billed: boolean;
  cost: { input: string | number; output: string | number; total: string | number; currency: string } | null;
}

export interface Settings {
  account: { timezone: string; language: string; currency: string };
  notifications: { email_usage_alert: boolean; email_low_balance: boolean; email_weekly_report: boolean; balance_threshold: number };
  api: { default_model: string | null; default_temperature: number; stream_by_default: boolean };
  security: { ip_whitelist_enabled: boolean; allowed_ips: string[]; request_logging: boolean };
}

export interface Health {
  status: string;
  components: Record<string, string>;
  latency: Record<string, number>;
}

export interface SystemStatus {
  status: string;
  version: string;
  uptime: number;
  region?: string;
  config_version?: number;
  last_reload: { at: string; ok: boolean; error: string | null; restart_required?: string[] } | null;
  management?: { writable: boolean; reason: string | null };
}
