/**
 * The validated, defaulted shape of gateway.yaml. Produced by `loadConfig`; never mutated after
 * it becomes part of a snapshot (reload builds a new one).
 */
import type { QuotaPeriod } from '../quota/period.ts';

export type ProviderType = 'compat' | 'vendor_b' | 'vendor_c' | 'vendor_d' | 'custom';
export type Status = 'active' | 'inactive';

/** How an OpenAI-compatible upstream is asked to continue a partial answer (routing/prefix.ts). */
export type PrefixStyle = 'trailing_assistant' | 'continue_final_message' | 'prefix';

/** Milliseconds. */
export interface Timeouts {
  connect: number;
  first_token: number;
  idle: number;
  total: number;
}

export interface ProviderConfig {
  id: string;
  name: string;
  type: ProviderType;
  status: Status;
  endpoint: string;
  /** Upstream credential after `${VAR}` and secret-reference resolution. */
  api_key?: string;
  models: string[];
  quota_limit: number;
  /** The quota starts over each period (gateway time zone); absent: never. */
  quota_period?: QuotaPeriod;
  created_at?: string;
  timeouts?: Partial<Timeouts>;
  /** Extra headers sent upstream (custom providers, proxies). */
  headers?: Record<string, string>;
  /** vendor_d: the `api-version` query value. */
  api_version?: string;
  /** custom: path template appended to endpoint, `{model}` replaced (default `/chat/completions`). */
  path?: string;
  /** custom: name of a plugin-registered adapter instead of the compat wire format. */
  adapter?: string;
  /** The upstream continues a partial assistant answer (a model's setting wins). */
  accepts_prefix?: boolean;
  prefix_style?: PrefixStyle;
}

/** One upstream serving a model config; several make a weighted pool. */
export interface ModelDeployment {
  provider: string;
  upstream_model?: string;
  weight?: number;
}

export interface ModelConfig {
  id: string;
  name: string;
  provider: string;
  context_length: number;
  input_price: number;
  output_price: number;
  capabilities: string[];
  status: Status;
  upstream_model?: string;
  endpoint?: string;
  timeouts?: Partial<Timeouts>;
  created_at?: string;
  /** Extra deployments for weighted load balancing (the primary `provider` has weight `weight`). */
  deployments?: ModelDeployment[];
  weight?: number;
  /**
   * Tried in order after a retryable failure when the request names no `fallbacks` of its own
   * (model ids or `provider/model`); one level: a fallback's own `fallbacks` are not followed.
   */
  fallbacks?: string[];
  /** The upstream accepts an assistant prefix to continue a broken answer (wins over the provider's). */
  accepts_prefix?: boolean;
  prefix_style?: PrefixStyle;
  max_output_tokens?: number;
  /** false: never hedge this model's first token (routing.hedge). */
  hedge?: boolean;
  /** How this model's deployments are ordered (default: routing.strategy). */
  strategy?: RoutingStrategy;
  /** Opt this model's chat requests into the semantic cache (the semantic-cache step). */
  semantic_cache?: boolean;
}

/** A named guardrail (src/plugins/guardrails): a check, where it runs, what it does, who it applies to. */
export interface GuardrailConfig {
  id: string;
  name: string;
  description?: string;
  stage: 'input' | 'output' | 'both';
  action: 'block' | 'redact' | 'flag';
  apply_to: { default: boolean; models: string[]; groups: string[]; keys: string[] };
  check: GuardrailCheckConfig;
  created_at?: string;
}

export type GuardrailCheckConfig =
  | { type: 'regex'; patterns: string[]; category: string }
  | { type: 'words'; words: string[]; category: string }
  | { type: 'pii'; kinds: Array<'email' | 'phone' | 'card' | 'iban' | 'ip'>; regions: string[] }
  | { type: 'secrets'; kinds: Array<'api_key' | 'aws_key' | 'private_key' | 'jwt'> }
  | { type: 'size'; max_tokens?: number; max_chars?: number }
  | { type: 'json'; match_schema: boolean }
  | { type: 'webhook'; url: string; timeout_ms: number; fail: 'open' | 'closed'; headers?: Record<string, string> }
  | { type: 'moderation'; model: string; timeout_ms: number; fail: 'open' | 'closed'; prompt?: string };

export interface GroupConfig {
  id: string;
  name: string;
  description: string;
  priority: number;
  quota_limit: number;
  /** The quota starts over each period (gateway time zone); absent: never. */
  quota_period?: QuotaPeriod;
  models: string[];
  features: string[];
  created_at?: string;
}

export interface KeyPermissions {
  models: string[];
  /** Requests per minute; 0 = no per-key limit. */
  rate_limit: number;
  /** Tokens (prompt + completion); 0 = no per-key budget. */
  quota_limit: number;
  /** The budget starts over each period (the account's time zone); absent: never. */
  quota_period?: QuotaPeriod;
  /** ISO 8601 time after which the key no longer authenticates; absent: never. */
  expires_at?: string;
}

export interface KeyConfig {
  id: string;
  name: string;
  /** `sha256:<hex>` of the full key. */
  key_hash: string;
  account: string;
  status: Status;
  permissions: KeyPermissions;
  /** Last 4 characters of the key, for masked display. */
  hint?: string;
  /**
   * The platform scopes the key is held to (those of the OAuth token that created it, or fewer);
   * absent: not scope-limited (created by the master key or an unscoped key).
   */
  scopes?: string[];
  created_at?: string;
}

export interface AccountConfig {
  id: string;
  email: string;
  name: string;
  role: 'admin' | 'member';
  group?: string;
  password_hash?: string;
  created_at?: string;
}

/** `console.sso`: the company's OpenID Connect provider, and how its claims map to an account. */
export interface ConsoleSsoConfig {
  name: string;
  issuer: string;
  client_id: string;
  client_secret: string;
  scopes: string[];
  email_claim: string;
  name_claim: string;
  role_claim: string;
  admin_values: string[];
  group_claim?: string;
}

export interface OAuthClientConfig {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  scopes: string[];
}

export interface AccountSettings {
  account: { timezone: string; language: string; currency: string };
  notifications: {
    email_usage_alert: boolean;
    email_low_balance: boolean;
    email_weekly_report: boolean;
    balance_threshold: number;
  };
  api: { default_model: string | null; default_temperature: number; stream_by_default: boolean };
  security: { ip_whitelist_enabled: boolean; allowed_ips: string[]; request_logging: boolean };
}

/** One entry of `pipeline:` after normalisation. */
export interface PipelineEntry {
  /** Built-in plugin name, or the name a custom module exports. */
  name: string;
  /** Module path (relative to gateway.yaml) or package name of a custom plugin. */
  module?: string;
  enabled: boolean;
  options: Record<string, unknown>;
}

/** How a model's deployments are ordered (src/routing/strategy.ts). */
export type RoutingStrategy = 'weighted' | 'least_busy' | 'lowest_latency';

export interface RoutingConfig {
  /** Retries on the same target before falling back. */
  retries: number;
  backoff_ms: number;
  backoff_max_ms: number;
  /** A Retry-After longer than this falls over at once instead of waiting. */
  max_retry_after_ms: number;
  breaker: { failure_threshold: number; cooldown_ms: number; max_cooldown_ms: number };
  strategy: RoutingStrategy;
  /** Hedged first tokens (src/routing/hedge.ts). */
  hedge: { enabled: boolean; after_ms: number; multiple: number; min_ms: number };
  /** First-token deadlines learned from each deployment's latency (src/routing/timeouts.ts). */
  learned_deadline: { enabled: boolean; multiple: number; min_ms: number };
  /** Samples a deployment needs before its hedge point and deadline are learned. */
  min_samples: number;
}

export interface GatewayConfig {
  /** The config format version the file is written for (absent: CONFIG_VERSION; version.ts). */
  version: number;
  server: {
    host: string;
    port: number;
    base_url?: string;
    /** Request body limit in bytes. */
    body_limit: number;
    workers: number;
    trusted_proxies: string[];
    /** Endpoints in the link-local / cloud metadata range are refused unless true (upstream-endpoints.ts). */
    allow_link_local_upstreams: boolean;
  };
  system: { region: string; data_residency: string };
  api: { rate_limit: number; rate_limit_period: number; max_concurrent_requests: number; queue_timeout_ms: number };
  limits: { max_context_length: number; default_temperature: number; default_max_tokens?: number };
  features: { streaming: boolean; function_calling: boolean; vision: boolean };
  timeouts: Timeouts;
  routing: RoutingConfig;
  providers: ProviderConfig[];
  models: ModelConfig[];
  groups: GroupConfig[];
  keys: KeyConfig[];
  accounts: AccountConfig[];
  guardrails: GuardrailConfig[];
  oauth: { clients: OAuthClientConfig[]; rate_limit: number };
  settings: AccountSettings;
  pipeline: PipelineEntry[];
  management: { write_back: boolean; rate_limit: number; max_keys_per_account: number; max_bytes_per_account: number; max_config_bytes: number };
  console: { sso?: ConsoleSsoConfig };
  logs: { retention_days: number; batch_size: number; flush_interval_ms: number; queue_max: number };
  responses: { ttl_seconds: number; store_by_default: boolean };
  /** Prices are in `currency`; `exchange_rates[X]` = units of X per unit of it. */
  billing: { currency: string; exchange_rates: Record<string, number> };
  metrics: { enabled: boolean; token?: string; port?: number; public: boolean };
  smtp?: { url: string; from: string };
  sms?: { webhook_url: string };
}
