/**
 * vendor_c, generateContent: `POST /v1beta/models/{model}:generateContent` (JSON) and
 * `:streamGenerateContent?alt=sse` (whole response objects, no end marker), `x-goog-api-key`.
 */
import type { Format } from './format.ts';
import type { Normalized } from './plan.ts';

const textOf = (parts: any[] | undefined) => (parts ?? []).filter((p) => typeof p.text === 'string').map((p) => p.text).join(' ');

function normalize(body: any, url: URL, model: string): Normalized {
  const contents: any[] = Array.isArray(body?.contents) ? body.contents : [];
  const last = contents.at(-1);
  const isResult = (c: any) => (c?.parts ?? []).some((p: any) => p.functionResponse);
  const user = [...contents].reverse().find((c) => c.role === 'user' && !isResult(c));
  const result = isResult(last) ? last.parts.find((p: any) => p.functionResponse).functionResponse.response : undefined;
  return {
    model,
    stream: url.pathname.endsWith(':streamGenerateContent'),
    lastUser: textOf(user?.parts),
    images: (user?.parts ?? []).filter((p: any) => p.inlineData || p.fileData).length,
    tools: (body?.tools ?? []).flatMap((t: any) => (t.functionDeclarations ?? []).map((f: any) => f.name)),
    toolResult: result === undefined ? undefined : typeof result.output === 'string' ? result.output : JSON.stringify(result),
    prefix: last?.role === 'model' ? textOf(last.parts) : undefined,
    stop: body?.generationConfig?.stopSequences,
    maxTokens: body?.generationConfig?.maxOutputTokens,
  };
}

const usageOf = (plan: { usage: { prompt: number; completion: number } }) => ({
  promptTokenCount: plan.usage.prompt,
  candidatesTokenCount: plan.usage.completion,
  totalTokenCount: plan.usage.prompt + plan.usage.completion,
});

export const generateFormat: Format = {
  name: 'vendor_c',
  match: (path) => /\/v1beta\/models\/([^/:]+):(?:stream)?[gG]enerateContent$/.exec(path)?.[1] ?? undefined,
  checkAuth: (headers) => (headers['x-goog-api-key'] ? null : 'Missing x-goog-api-key header.'),
  normalize: (body, url, model) => normalize(body, url, model ?? ''),
  errorBody(status, message, retryAfter) {
    const statusName = status === 429 ? 'RESOURCE_EXHAUSTED' : status === 400 ? 'INVALID_ARGUMENT' : status === 503 ? 'UNAVAILABLE' : 'INTERNAL';
    const details = retryAfter ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` }] : [];
    return { error: { code: status, message, status: statusName, details } };
  },
  json(plan, request) {
    const parts = plan.toolCall ? [{ functionCall: { name: plan.toolCall.name, args: JSON.parse(plan.toolCall.arguments) } }] : [{ text: plan.text }];
    const finishReason = plan.finish === 'length' ? 'MAX_TOKENS' : 'STOP';
    return { candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }], usageMetadata: usageOf(plan), modelVersion: request.model };
  },
  writer(send, request, plan) {
    const response = (parts: object[], finish?: string) => ({
      candidates: [{ content: { role: 'model', parts }, ...(finish ? { finishReason: finish } : {}), index: 0 }],
      usageMetadata: finish ? usageOf(plan) : { promptTokenCount: plan.usage.prompt },
      modelVersion: request.model,
    });
    return {
      start() {},
      text: (piece) => send(null, response([{ text: piece }])),
      tool: (call) => send(null, response([{ functionCall: { name: call.name, args: JSON.parse(call.arguments) } }])),
      finish: (reason) => send(null, response([{ text: '' }], reason === 'length' ? 'MAX_TOKENS' : 'STOP')),
      end() {},
    };
  },
};
