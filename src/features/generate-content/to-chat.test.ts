import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../kernel/errors.ts';
import { nativeBodyFor } from '../../providers/native.ts';
import { generateToChat } from './to-chat.ts';

const refusal = (body: unknown) => {
  try {
    generateToChat(body, 'm', false);
  } catch (error) {
    if (GatewayError.is(error)) return { status: error.status, param: error.param };
    throw error;
  }
  throw new Error('accepted');
};

describe('generateToChat', () => {
  it('translates system, turns, calls and responses, matching responses to calls by name', () => {
    const request = generateToChat(
      {
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        contents: [
          { role: 'user', parts: [{ text: 'Paris?' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] },
          { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'sig' }] },
          { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }, { text: 'thanks' }] },
        ],
        generationConfig: { maxOutputTokens: 10, stopSequences: ['x'], thinkingConfig: { thinkingBudget: 1000 } },
      },
      'gen/m',
      true,
    );
    expect(request).toMatchObject({ model: 'gen/m', stream: true, stream_options: { include_usage: true }, max_tokens: 10, stop: ['x'], reasoning_effort: 'low' });
    const [system, user, model, tool, after] = request.messages;
    expect(system).toEqual({ role: 'system', content: 'Be brief.' });
    expect(user!.content).toEqual([{ type: 'text', text: 'Paris?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }]);
    expect(model!.tool_calls![0]).toEqual({ id: 'call_1__thought__sig', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
    expect(tool).toEqual({ role: 'tool', tool_call_id: 'call_1__thought__sig', content: '{"output":"sunny"}' });
    expect(after).toEqual({ role: 'user', content: 'thanks' });
  });

  it('keeps the client body for a generateContent upstream until the messages change', () => {
    const body = { contents: [{ parts: [{ text: 'hi' }] }], safetySettings: [] };
    const request = generateToChat(body, 'm', false);
    expect(nativeBodyFor(request, 'vendor_c')).toEqual(body);
    expect(nativeBodyFor(request, 'vendor_b')).toBeUndefined();
    expect(nativeBodyFor(Object.assign({}, request, { max_tokens: 5 }), 'vendor_c')).toEqual(body);
    expect(nativeBodyFor({ ...request, messages: [...request.messages] }, 'vendor_c')).toBeUndefined();
    expect(JSON.stringify(request)).not.toContain('safetySettings');
  });

  it('forces the allowed functions of mode ANY', () => {
    const tools = [{ functionDeclarations: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }];
    const one = generateToChat({ contents: [{ parts: [{ text: 'x' }] }], tools, toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['b'] } } }, 'm', false);
    expect(one.tool_choice).toEqual({ type: 'function', function: { name: 'b' } });
    const two = generateToChat({ contents: [{ parts: [{ text: 'x' }] }], tools, toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['a', 'c'] } } }, 'm', false);
    expect(two.tool_choice).toBe('required');
    expect(two.tools!.map((tool) => tool.function.name)).toEqual(['a', 'c']);
  });

  it.each([
    [{ contents: [] }, 'contents'],
    [{ contents: [{ parts: [{ text: 'x' }] }], labels: {} }, 'labels'],
    [{ contents: [{ parts: [{ executableCode: {} }] }] }, 'contents[0].parts[0].executableCode'],
    [{ contents: [{ parts: [{ fileData: { fileUri: 'gs://b/f', mimeType: 'image/png' } }] }] }, 'contents[0].parts[0].fileData.fileUri'],
    [{ contents: [{ role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] }] }, 'contents[0].parts[0].functionResponse'],
    [{ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { candidateCount: 2 } }, 'generationConfig.candidateCount'],
    [{ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { responseMimeType: 'text/x.enum' } }, 'generationConfig.responseMimeType'],
    [{ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { speechConfig: {} } }, 'generationConfig.speechConfig'],
  ])('refuses with 400 naming the field (%#)', (body, param) => {
    expect(refusal(body)).toEqual({ status: 400, param });
  });
});
