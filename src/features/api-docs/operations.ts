/**
 * What the route table cannot say about a route: its summary, the group it is listed under, its
 * query parameters and the schema of its body (one of the schemas the gateway validates with).
 * Keyed like the route-scope table (`"GET /v1/api-keys/:id"`); a catch-all mount lists the
 * operations it serves under `expands`. document.test.ts fails when a served route has no entry
 * here or an entry names no served route.
 */

export type Tag = 'Inference' | 'Models' | 'API keys' | 'Logs' | 'Statistics' | 'Settings' | 'Security' | 'Admin' | 'System' | 'OAuth' | 'Console' | 'Documentation';

/** A query parameter: `name`, what it does, its JSON Schema type. */
export type Query = readonly [name: string, description: string, schema?: object];

export interface OperationDoc {
  tag: Tag;
  summary: string;
  description?: string;
  /** `#/components/schemas/<name>` of the JSON body. */
  body?: string;
  query?: readonly Query[];
  /** Media type of the success answer (default `application/json`). */
  produces?: string;
  /** Status of the success answer (default 200). */
  status?: number;
}

/** A catch-all route documented as the operations it serves (OpenAPI paths, explicit methods). */
export interface Expansion {
  expands: ReadonlyArray<OperationDoc & { method: string; path: string }>;
}

const DATE = { type: 'string', format: 'date' };
const DATE_TIME = { type: 'string' };
const PAGE: readonly Query[] = [
  ['page', 'Page number, from 1.', { type: 'integer', minimum: 1 }],
  ['page_size', 'Rows per page.', { type: 'integer', minimum: 1 }],
];
const LOG_FILTER: readonly Query[] = [
  ['start_time', 'ISO 8601 time (UTC when no offset) of the oldest call.', DATE_TIME],
  ['end_time', 'ISO 8601 time of the newest call.', DATE_TIME],
  ['status', 'Only successful or failed calls.', { enum: ['success', 'error'] }],
  ['api_key_id', 'Only calls made with this key.', { type: 'string' }],
  ['model', 'Only calls to this model.', { type: 'string' }],
  ...PAGE,
];
const STATISTICS: readonly Query[] = [
  ['start_date', 'First day (YYYY-MM-DD, in the account time zone; default 29 days before end_date).', DATE],
  ['end_date', 'Last day, inclusive (default today).', DATE],
  ['group_by', 'Rows per day, month or model.', { enum: ['day', 'month', 'model'] }],
  ['api_key_id', 'Only calls made with this key.', { type: 'string' }],
];

/** list, get, create, update, delete of a `/v1/admin/<name>` resource whose body is `schema`. */
function adminResource(path: string, noun: string, schema: string): Record<string, OperationDoc> {
  return {
    [`GET ${path}`]: { tag: 'Admin', summary: `List ${noun}s` },
    [`GET ${path}/:id`]: { tag: 'Admin', summary: `Get a ${noun}` },
    [`POST ${path}`]: { tag: 'Admin', summary: `Create a ${noun} (written back to gateway.yaml)`, body: schema, status: 201 },
    [`PUT ${path}/:id`]: { tag: 'Admin', summary: `Update a ${noun}: fields merge, null clears an optional one`, body: schema },
    [`DELETE ${path}/:id`]: { tag: 'Admin', summary: `Delete a ${noun}` },
  };
}

const generate = (verb: string, summary: string) => ({
  method: 'POST',
  path: `/api/v1beta/models/{model}:${verb}`,
  tag: 'Inference' as const,
  summary,
  body: 'GenerateContentRequest',
});

export const OPERATIONS: Readonly<Record<string, OperationDoc | Expansion>> = {
  // Inference (run through the pipeline)
  'POST /api/v1/chat/completions': { tag: 'Inference', summary: 'Create a chat completion (OpenAI Chat Completions)', body: 'ChatCompletionRequest', description: 'With `stream: true` the answer is `text/event-stream`.' },
  'POST /api/v1/embeddings': { tag: 'Inference', summary: 'Create embeddings (OpenAI Embeddings)', body: 'EmbeddingsRequest' },
  'POST /api/v1/responses': { tag: 'Inference', summary: 'Create a response (OpenAI Responses)', body: 'ResponsesRequest', description: 'Streamed with `stream: true`; `background: true` answers at once and runs on.' },
  'POST /api/v1/messages': { tag: 'Inference', summary: 'Create a message (the Messages API of Anthropic\'s SDK)', body: 'MessagesRequest' },
  'POST /api/v1/messages/count_tokens': { tag: 'Inference', summary: 'Count the input tokens of a Messages API request', body: 'MessagesRequest' },
  'POST /api/v1beta/models/**': {
    expands: [
      generate('generateContent', 'Generate content (Google GenAI SDK)'),
      { ...generate('streamGenerateContent', 'Generate content as a stream (`alt=sse` for server-sent events)'), query: [['alt', '`sse` for `data:` events; without it one JSON array written as it comes.', { enum: ['sse'] }]] },
      generate('countTokens', 'Count the tokens of a generateContent request'),
    ],
  },
  'GET /api/v1/responses/:id': { tag: 'Inference', summary: 'Get a stored response (the key that made it)' },
  'DELETE /api/v1/responses/:id': { tag: 'Inference', summary: 'Delete a stored response' },
  'POST /api/v1/responses/:id/cancel': { tag: 'Inference', summary: 'Cancel a background response' },
  'GET /api/v1/models': { tag: 'Models', summary: 'List the models the caller may use' },
  'GET /api/v1/models/:id': { tag: 'Models', summary: 'Get one model of that list' },
  // API keys
  'GET /v1/api-keys': { tag: 'API keys', summary: "List the caller's API keys" },
  'GET /v1/api-keys/:id': { tag: 'API keys', summary: 'Get an API key (never its secret)' },
  'POST /v1/api-keys': { tag: 'API keys', summary: 'Create an API key (the secret is shown once)', body: 'ApiKeyInput', status: 201 },
  'PUT /v1/api-keys/:id': { tag: 'API keys', summary: 'Update an API key', body: 'ApiKeyInput' },
  'DELETE /v1/api-keys/:id': { tag: 'API keys', summary: 'Delete an API key' },
  'POST /v1/api-keys/:id/rotate': { tag: 'API keys', summary: 'Rotate an API key: a new secret, the old one stops working' },
  // Logs and statistics
  'GET /v1/logs': { tag: 'Logs', summary: "List the caller's calls", query: LOG_FILTER },
  'GET /v1/logs/:id': { tag: 'Logs', summary: 'Get one call, with its bodies when logging keeps them' },
  'GET /v1/admin/logs': { tag: 'Logs', summary: "List every account's calls (admin)", query: LOG_FILTER },
  'GET /v1/admin/logs/:id': { tag: 'Logs', summary: 'Get any call (admin)' },
  'GET /v1/statistics/usage': { tag: 'Statistics', summary: 'Requests and tokens over time', query: STATISTICS },
  'GET /v1/statistics/models': { tag: 'Statistics', summary: 'Usage per model', query: STATISTICS },
  'GET /v1/statistics/cost': { tag: 'Statistics', summary: 'Cost over time, in the account currency', query: STATISTICS },
  'GET /v1/statistics/export': {
    tag: 'Statistics',
    summary: 'Export usage or cost as CSV or JSON',
    query: [...STATISTICS, ['format', 'csv (default) or json.', { enum: ['csv', 'json'] }], ['type', 'usage (default) or cost.', { enum: ['usage', 'cost'] }]],
    produces: 'text/csv',
  },
  'GET /v1/statistics/breakdown': {
    tag: 'Statistics',
    summary: 'Requests, errors, tokens, cost and latency percentiles per model, provider, key, account or group',
    description: 'Reads the log rows of the range (up to 50,000 calls, newest first; past that `truncated: true`).',
    query: [...STATISTICS.filter(([name]) => name !== 'group_by'), ['by', 'model (default), provider, key, account or group.', { enum: ['model', 'provider', 'key', 'account', 'group'] }]],
  },
  // The caller's account
  'GET /v1/settings': { tag: 'Settings', summary: "The caller's settings" },
  'PUT /v1/settings': { tag: 'Settings', summary: "Change the caller's settings (fields merge)", body: 'settings' },
  'GET /v1/admin/users/:id/settings': { tag: 'Settings', summary: "An account's settings (admin)" },
  'PUT /v1/admin/users/:id/settings': { tag: 'Settings', summary: "Change an account's settings (admin)", body: 'settings' },
  'GET /v1/security/status': { tag: 'Security', summary: 'Two-factor state, login alerts and trusted devices' },
  'POST /v1/security/send-code': { tag: 'Security', summary: 'Send a one-time code by email or SMS' },
  'POST /v1/security/verify': { tag: 'Security', summary: 'Verify a one-time code (turns two-factor on)' },
  'POST /v1/security/two-factor/disable': { tag: 'Security', summary: 'Turn two-factor sign-in off' },
  'PUT /v1/security/login-alerts': { tag: 'Security', summary: 'Turn login alerts on or off' },
  'DELETE /v1/security/trusted-devices/:id': { tag: 'Security', summary: 'Forget a trusted device' },
  'POST /v1/security/recovery-codes': { tag: 'Security', summary: 'Make ten single-use recovery codes, shown once (voids the previous set)' },
  'POST /v1/admin/users/:id/two-factor/reset': { tag: 'Security', summary: "Turn a member's two-factor sign-in off (a lost phone; admin)" },
  // Admin
  ...adminResource('/v1/admin/providers', 'provider', 'provider'),
  ...adminResource('/v1/admin/models', 'model', 'model'),
  ...adminResource('/v1/admin/groups', 'group', 'group'),
  ...adminResource('/v1/admin/users', 'user', 'account'),
  ...adminResource('/v1/admin/guardrails', 'guardrail', 'guardrail'),
  'POST /v1/admin/providers/:id/test': {
    tag: 'Admin',
    summary: 'Test a provider with one tiny chat call (no breaker, quota or call log trace)',
    description: 'The optional body `{"model": "..."}` names the upstream model to ask; by default the provider\'s first.',
  },
  'GET /v1/admin/providers/:id/health': { tag: 'Admin', summary: "A provider's health: breaker state and recent failed calls" },
  // System
  'GET /v1/system/health': { tag: 'System', summary: 'Health of the gateway and its components (200 while it serves)' },
  'GET /v1/system/status': { tag: 'System', summary: 'Version, uptime, the last reload and whether changes are written back' },
  'GET /v1/system/config': { tag: 'System', summary: 'The limits and features in force' },
  'GET /metrics': { tag: 'System', summary: 'Prometheus metrics (metrics.token, metrics.public or a port of their own)', produces: 'text/plain' },
  'GET /v1/openapi.json': { tag: 'Documentation', summary: 'This OpenAPI document' },
  'GET /v1/docs': { tag: 'Documentation', summary: 'The operations of this document, browsable', produces: 'text/html' },
  // OAuth (oidc-provider behind /oauth, and our sign-in pages)
  'GET /oauth/interaction/:uid': { tag: 'OAuth', summary: 'Sign-in and consent page of an authorization', produces: 'text/html' },
  'POST /oauth/interaction/:uid': { tag: 'OAuth', summary: 'Submit the sign-in or consent form', produces: 'text/html' },
  'ALL /oauth/**': {
    expands: [
      { method: 'GET', path: '/oauth/authorize', tag: 'OAuth', summary: 'Authorization endpoint (code flow with PKCE)', produces: 'text/html' },
      { method: 'GET', path: '/oauth/authorize/{uid}', tag: 'OAuth', summary: 'Resume an authorization after the sign-in pages', produces: 'text/html' },
      { method: 'POST', path: '/oauth/token', tag: 'OAuth', summary: 'Token endpoint (authorization_code, refresh_token)' },
      { method: 'GET', path: '/oauth/jwks', tag: 'OAuth', summary: 'The public keys tokens are signed with (JWKS)' },
      { method: 'GET', path: '/oauth/userinfo', tag: 'OAuth', summary: 'UserInfo of the token holder' },
      { method: 'POST', path: '/oauth/userinfo', tag: 'OAuth', summary: 'UserInfo of the token holder (the token in a form body)' },
      { method: 'POST', path: '/oauth/token/revocation', tag: 'OAuth', summary: 'Revoke a token (RFC 7009)' },
      { method: 'POST', path: '/oauth/par', tag: 'OAuth', summary: 'Pushed authorization request (RFC 9126)', status: 201 },
      { method: 'POST', path: '/oauth/session/end/confirm', tag: 'OAuth', summary: 'Confirm a sign-out', produces: 'text/html' },
    ],
  },
  'ALL /.well-known/openid-configuration': {
    expands: [{ method: 'GET', path: '/.well-known/openid-configuration', tag: 'OAuth', summary: 'Authorization server metadata (OpenID Connect discovery)' }],
  },
  // The console (a single-page app; it calls the API above with its OAuth token)
  'GET /console/config.json': { tag: 'Console', summary: 'What the sign-in page needs before sign-in (client id, SSO)' },
  'GET /console/sso/callback': { tag: 'Console', summary: "Return from the company's SSO provider", produces: 'text/html' },
  'GET /console/sso/:uid': { tag: 'Console', summary: "Start a sign-in through the company's SSO provider", produces: 'text/html' },
  'POST /console/session': { tag: 'Console', summary: 'Start the console session from a sign-in access token (an HttpOnly cookie; needs `X-Gateway-Console: 1`)', status: 204 },
  'POST /console/session/token': { tag: 'Console', summary: "A short-lived access token for the session's grant (needs `X-Gateway-Console: 1`)" },
  'DELETE /console/session': { tag: 'Console', summary: 'Sign out: end the session and revoke its grant (needs `X-Gateway-Console: 1`)', status: 204 },
  'GET /console': { tag: 'Console', summary: 'The web console', produces: 'text/html' },
  'GET /console/**': { expands: [{ method: 'GET', path: '/console/{page}', tag: 'Console', summary: 'A console page or one of its assets', produces: 'text/html' }] },
};
