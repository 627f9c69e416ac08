/**
 * The admin resources (providers, models, groups, users) as data: their API path, the form's
 * fields and the table's columns. One generic page (resources.tsx) renders them all.
 */
export type FieldKind = 'text' | 'number' | 'list' | 'select' | 'secret' | 'headers' | 'deployments' | 'bool';

export interface FieldSpec {
  name: string;
  label: string;
  kind: FieldKind;
  options?: string[];
  /** Only on create (ids); required on create when `required`. */
  createOnly?: boolean;
  required?: boolean;
  hint?: string;
}

export interface ResourceSpec {
  path: string;
  singular: string;
  fields: FieldSpec[];
  /** Column name → how to show it; `quota` draws a bar of quota_used / quota_limit. */
  columns: Array<{ label: string; field: string; kind?: 'quota' | 'list' | 'pill' | 'money' }>;
}

const STATUS: FieldSpec = { name: 'status', label: 'Status', kind: 'select', options: ['active', 'inactive'] };

/** Timeouts in ms, each overriding the gateway's (empty: the gateway's, or the provider's for a model). */
const TIMEOUTS: FieldSpec[] = [
  { name: 'timeouts.connect', label: 'Connect timeout (ms)', kind: 'number', hint: 'Empty: inherited.' },
  { name: 'timeouts.first_token', label: 'First token timeout (ms)', kind: 'number', hint: 'Until the answer begins.' },
  { name: 'timeouts.idle', label: 'Idle timeout (ms)', kind: 'number', hint: 'Longest pause inside a stream.' },
  { name: 'timeouts.total', label: 'Total timeout (ms)', kind: 'number', hint: 'The whole call.' },
];

/** Stream resume: whether the upstream continues a partial answer, and how it is asked. */
const PREFIX: FieldSpec[] = [
  { name: 'accepts_prefix', label: 'Continues a cut answer', kind: 'bool', hint: 'Default' },
  { name: 'prefix_style', label: 'Prefix style', kind: 'select', options: ['', 'trailing_assistant', 'continue_final_message', 'prefix'] },
];

export const RESOURCES: Record<string, ResourceSpec> = {
  providers: {
    path: '/v1/admin/providers',
    singular: 'provider',
    fields: [
      { name: 'id', label: 'Id', kind: 'text', createOnly: true, hint: 'Optional: a slug of the name by default.' },
      { name: 'name', label: 'Name', kind: 'text', required: true },
      { name: 'type', label: 'Type', kind: 'select', options: ['compat', 'vendor_b', 'vendor_c', 'vendor_d', 'custom'], required: true },
      { name: 'endpoint', label: 'Endpoint', kind: 'text', required: true, hint: 'The upstream base URL, e.g. https://api.example.com/v1' },
      { name: 'api_key', label: 'API key', kind: 'secret', hint: 'Stored in the secrets file, never shown again. Leave empty to keep the current one.' },
      { name: 'models', label: 'Models', kind: 'list', hint: 'Comma-separated upstream model names.' },
      { name: 'quota_limit', label: 'Quota (tokens)', kind: 'number', hint: '0 means unlimited.' },
      STATUS,
      ...TIMEOUTS,
      {
        name: 'headers',
        label: 'Extra headers',
        kind: 'headers',
        hint: 'One "Name: value" per line, sent upstream. Values are shown masked; a masked value sent back keeps the stored one.',
      },
      ...PREFIX,
    ],
    columns: [
      { label: 'Name', field: 'name' },
      { label: 'Id', field: 'id' },
      { label: 'Type', field: 'type' },
      { label: 'Status', field: 'status', kind: 'pill' },
      { label: 'Models', field: 'models', kind: 'list' },
      { label: 'Quota', field: 'quota_limit', kind: 'quota' },
    ],
  },
  models: {
    path: '/v1/admin/models',
    singular: 'model',
    fields: [
      { name: 'id', label: 'Id', kind: 'text', createOnly: true, required: true, hint: 'The name clients send as `model`.' },
      { name: 'name', label: 'Name', kind: 'text', required: true },
      { name: 'provider', label: 'Provider id', kind: 'text', required: true },
      { name: 'upstream_model', label: 'Upstream model', kind: 'text', hint: 'The name sent upstream; the id by default.' },
      { name: 'context_length', label: 'Context length', kind: 'number' },
      { name: 'input_price', label: 'Input price per 1K tokens', kind: 'number' },
      { name: 'output_price', label: 'Output price per 1K tokens', kind: 'number' },
      { name: 'capabilities', label: 'Capabilities', kind: 'list', hint: 'e.g. chat, function_calling, vision' },
      {
        name: 'fallbacks',
        label: 'Fallbacks',
        kind: 'list',
        hint: 'Comma-separated model ids or provider/model, tried in order when this model fails and the request names no fallbacks.',
      },
      STATUS,
      { name: 'weight', label: 'Weight of the provider', kind: 'number', hint: 'Share of calls for the provider above among the deployments (default 1).' },
      {
        name: 'deployments',
        label: 'More deployments',
        kind: 'deployments',
        hint: 'Comma-separated provider[:upstream model]=weight, e.g. backup:gpt-4o=1, sharing the calls by weight.',
      },
      ...TIMEOUTS,
      ...PREFIX,
    ],
    columns: [
      { label: 'Id', field: 'id' },
      { label: 'Name', field: 'name' },
      { label: 'Provider', field: 'provider' },
      { label: 'Context', field: 'context_length' },
      { label: 'Input / 1K', field: 'input_price', kind: 'money' },
      { label: 'Output / 1K', field: 'output_price', kind: 'money' },
      { label: 'Fallbacks', field: 'fallbacks', kind: 'list' },
      { label: 'Status', field: 'status', kind: 'pill' },
    ],
  },
  groups: {
    path: '/v1/admin/groups',
    singular: 'group',
    fields: [
      { name: 'id', label: 'Id', kind: 'text', createOnly: true, hint: 'Optional: a slug of the name by default.' },
      { name: 'name', label: 'Name', kind: 'text', required: true },
      { name: 'description', label: 'Description', kind: 'text' },
      { name: 'priority', label: 'Priority', kind: 'number', hint: 'Higher goes first in the priority queue.' },
      { name: 'quota_limit', label: 'Quota (tokens)', kind: 'number', hint: '0 means unlimited.' },
      { name: 'models', label: 'Models', kind: 'list', hint: 'Comma-separated; empty allows every model.' },
      { name: 'features', label: 'Features', kind: 'list', hint: 'priority_queue, dedicated_channel' },
    ],
    columns: [
      { label: 'Name', field: 'name' },
      { label: 'Id', field: 'id' },
      { label: 'Priority', field: 'priority' },
      { label: 'Features', field: 'features', kind: 'list' },
      { label: 'Quota', field: 'quota_limit', kind: 'quota' },
    ],
  },
  users: {
    path: '/v1/admin/users',
    singular: 'user',
    fields: [
      { name: 'email', label: 'Email', kind: 'text', required: true },
      { name: 'name', label: 'Name', kind: 'text', required: true },
      { name: 'role', label: 'Role', kind: 'select', options: ['member', 'admin'], required: true },
      { name: 'group', label: 'Group id', kind: 'text' },
      { name: 'password', label: 'Password', kind: 'secret', hint: 'At least 8 characters. Leave empty to keep the current one.' },
    ],
    columns: [
      { label: 'Email', field: 'email' },
      { label: 'Name', field: 'name' },
      { label: 'Role', field: 'role', kind: 'pill' },
      { label: 'Group', field: 'group' },
    ],
  },
};
