/**
 * A coding agent's request (Claude Code with ANTHROPIC_BASE_URL pointing at the gateway) replayed:
 * system blocks with cache_control, many tools, streaming, thinking, metadata and beta headers.
 * To a Messages-API upstream it goes through with only the model renamed; to a chat upstream it
 * is translated, and either way the agent gets the Messages API's event stream.
 */
import { describe, expect, it, beforeEach } from 'vitest';
import { DEMO_KEY, useGateway } from '../_setup.ts';

const env = useGateway('messages.yaml');
beforeEach(() => env.mock.reset());

const tools = Array.from({ length: 16 }, (_, i) => ({
  name: i === 0 ? 'Read' : `Tool${i}`,
  description: `Tool number ${i}`,
  input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'], additionalProperties: false },
  ...(i === 15 ? { cache_control: { type: 'ephemeral' } } : {}),
}));

const agentBody = (model: string) => ({
  model,
  max_tokens: 32000,
  stream: true,
  thinking: { type: 'enabled', budget_tokens: 4000 },
  metadata: { user_id: 'user_abc_account_123_session_xyz' },
  system: [
    { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral' } },
    { type: 'text', text: 'Here is useful information about the environment.', cache_control: { type: 'ephemeral' } },
  ],
  tools,
  messages: [
    { role: 'user', content: [{ type: 'text', text: '<system-reminder>context</system-reminder>' }, { type: 'text', text: 'read the file', cache_control: { type: 'ephemeral' } }] },
  ],
});

const AGENT_HEADERS = {
  'x-api-key': DEMO_KEY,
  'anthropic-version': '2023-06-01',
  'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14',
  'anthropic-dangerous-direct-browser-access': 'true',
  'content-type': 'application/json',
  'user-agent': 'claude-cli/2.0.0 (external, cli)',
};

async function replay(model: string) {
  const body = agentBody(model);
  const res = await fetch(`${env.gw.url}/api/v1/messages`, { method: 'POST', headers: AGENT_HEADERS, body: JSON.stringify(body) });
  const text = await res.text();
  const events = text.split('\n\n').filter((f) => f.trim()).map((f) => ({ event: /^event: (.*)$/m.exec(f)![1], data: JSON.parse(/^data: (.*)$/m.exec(f)![1]!) }));
  return { res, body, events };
}

describe('a coding agent replayed', () => {
  it('reaches a Messages-API upstream with only the model renamed, its betas forwarded and its key never', async () => {
    const { res, body, events } = await replay('claude-model');
    expect(res.status).toBe(200);
    const received = env.mock.requests[0]!;
    expect(received.body).toEqual({ ...body, model: 'm-msgs' });
    expect(received.headers['anthropic-beta']).toBe(AGENT_HEADERS['anthropic-beta']);
    expect(received.headers['anthropic-version']).toBe('2023-06-01');
    expect(received.headers['x-api-key']).toBe('msgs-secret');
    // The upstream's own events, its model renamed to the client's.
    expect(events.map((e) => e.event)).toEqual([
      'message_start', 'ping',
      'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop',
      'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop',
      'message_delta', 'message_stop',
    ]);
    expect(events[0]!.data.message.model).toBe('claude-model');
    expect(events[4]!.data.delta).toEqual({ type: 'signature_delta', signature: expect.stringMatching(/^sig-mock/) });
    expect(events[6]!.data.content_block).toMatchObject({ type: 'tool_use', name: 'Read' });
    expect(events[10]!.data.delta.stop_reason).toBe('tool_use');
  });

  it('is translated for a chat upstream and answered with the same kind of event stream', async () => {
    const { res, events } = await replay('chat-model');
    expect(res.status).toBe(200);
    const sent = env.mock.requests[0]!.body;
    expect(sent.messages[0]).toEqual({ role: 'system', content: "You are Claude Code, Anthropic's official CLI for Claude.\n\nHere is useful information about the environment." });
    expect(sent.messages[1]).toEqual({ role: 'user', content: [{ type: 'text', text: '<system-reminder>context</system-reminder>' }, { type: 'text', text: 'read the file' }] });
    expect(sent.tools).toHaveLength(16);
    expect(sent.tools[0]).toEqual({ type: 'function', function: { name: 'Read', description: 'Tool number 0', parameters: tools[0]!.input_schema } });
    expect(sent).toMatchObject({ max_tokens: 32000, reasoning_effort: 'medium', user: 'user_abc_account_123_session_xyz', stream: true });
    expect(env.mock.requests[0]!.headers['anthropic-beta']).toBeUndefined();
    expect(events.map((e) => e.event)).toEqual([
      'message_start', 'ping', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop',
    ]);
    expect(events[2]!.data.content_block).toMatchObject({ type: 'tool_use', name: 'Read' });
    const json = events.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta.partial_json).join('');
    expect(JSON.parse(json)).toEqual({ city: '<system-reminder>context</system-reminder> read the file' });
    expect(events[6]!.data).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 5 } });
  });
});
