/**
 * generateContent `contents` and `systemInstruction` → chat messages: the reverse of
 * src/providers/gemini-request.ts translateContents. A `model` turn becomes one assistant message
 * (its text and its function calls); a `user` turn's function responses become tool messages,
 * answering the calls by id, else by name in order, and its other parts one user message after them.
 */
import { invalidValue, unsupportedParameter } from '../../kernel/errors.ts';
import type { ChatMessage, ContentPart, ToolCall } from '../../providers/openai-types.ts';
import { SIGNATURE_MARK } from '../../providers/gemini-request.ts';
import { isObject, refuseUnknown } from './fields.ts';

type Part = Record<string, unknown>;

const PART_FIELDS = new Set(['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'thought', 'thoughtSignature']);

/** One media part (inlineData or fileData) as a chat content part. */
function mediaPart(part: Part, where: string): ContentPart {
  if (part.inlineData !== undefined) {
    const data = part.inlineData as Record<string, unknown>;
    if (!isObject(data) || typeof data.mimeType !== 'string' || typeof data.data !== 'string')
      throw invalidValue(`'${where}.inlineData' needs a string 'mimeType' and base64 'data'.`, `${where}.inlineData`);
    const url = `data:${data.mimeType};base64,${data.data}`;
    return data.mimeType.startsWith('image/') ? { type: 'image_url', image_url: { url } } : ({ type: 'file', file: { file_data: url } } as ContentPart);
  }
  const file = part.fileData as Record<string, unknown>;
  if (!isObject(file) || typeof file.fileUri !== 'string') throw invalidValue(`'${where}.fileData' needs a string 'fileUri'.`, `${where}.fileData`);
  // A Files API or Cloud Storage URI names a file only its own upstream can read.
  if (!/^https?:\/\//i.test(file.fileUri))
    throw unsupportedParameter(`'${where}.fileData.fileUri' must be an http(s) URL here (uploaded files are not shared with the gateway's upstreams).`, `${where}.fileData.fileUri`);
  const mime = typeof file.mimeType === 'string' ? file.mimeType : '';
  if (mime && !mime.startsWith('image/'))
    throw unsupportedParameter(`Only images can be passed by URL here ('${where}.fileData.mimeType' is '${mime}'): send other files as inlineData.`, `${where}.fileData.mimeType`);
  return { type: 'image_url', image_url: { url: file.fileUri } };
}

/** Turns and calls seen so far: function responses answer earlier calls. */
class CallBook {
  private count = 0;
  /** Calls not answered yet, by function name, in order. */
  private readonly open = new Map<string, string[]>();

  call(part: Part, where: string): ToolCall {
    const call = part.functionCall as Record<string, unknown>;
    if (!isObject(call) || typeof call.name !== 'string' || call.name === '')
      throw invalidValue(`'${where}.functionCall' needs a 'name'.`, `${where}.functionCall.name`);
    if (call.args !== undefined && !isObject(call.args)) throw invalidValue(`'${where}.functionCall.args' must be an object.`, `${where}.functionCall.args`);
    let id = typeof call.id === 'string' && call.id !== '' ? call.id : `call_${++this.count}`;
    // The signature travels in the id, as the vendor_c adapter expects it back (gemini-request.ts).
    if (typeof part.thoughtSignature === 'string') id += SIGNATURE_MARK + part.thoughtSignature;
    const queue = this.open.get(call.name) ?? [];
    queue.push(id);
    this.open.set(call.name, queue);
    return { id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } };
  }

  response(part: Part, where: string): ChatMessage {
    const response = part.functionResponse as Record<string, unknown>;
    if (!isObject(response) || typeof response.name !== 'string')
      throw invalidValue(`'${where}.functionResponse' needs a 'name'.`, `${where}.functionResponse.name`);
    const queue = this.open.get(response.name) ?? [];
    const wanted = typeof response.id === 'string' ? queue.findIndex((id) => id === response.id || id.startsWith(response.id + SIGNATURE_MARK)) : 0;
    const id = wanted >= 0 ? queue.splice(wanted, 1)[0] : undefined;
    if (id === undefined)
      throw invalidValue(`'${where}.functionResponse' answers no earlier functionCall of '${response.name}'.`, `${where}.functionResponse`);
    return { role: 'tool', tool_call_id: id, content: JSON.stringify(response.response ?? {}) };
  }
}

/** One turn's parts, checked: the text and media, the calls, the responses. */
function readParts(parts: unknown, where: string, book: CallBook) {
  if (!Array.isArray(parts) || parts.length === 0) throw invalidValue(`'${where}.parts' must be a non-empty array.`, `${where}.parts`);
  const content: ContentPart[] = [];
  const calls: ToolCall[] = [];
  const results: ChatMessage[] = [];
  parts.forEach((part: unknown, j) => {
    const at = `${where}.parts[${j}]`;
    if (!isObject(part)) throw invalidValue(`'${at}' must be an object.`, at);
    refuseUnknown(part, PART_FIELDS, at);
    // Thoughts of earlier turns are not sent back (the upstreams ignore them); their signatures are.
    if (part.thought === true) return;
    if (typeof part.text === 'string') {
      if (part.text !== '') content.push({ type: 'text', text: part.text });
    } else if (part.inlineData !== undefined || part.fileData !== undefined) content.push(mediaPart(part, at));
    else if (part.functionCall !== undefined) calls.push(book.call(part, at));
    else if (part.functionResponse !== undefined) results.push(book.response(part, at));
    else throw invalidValue(`'${at}' has no data (text, inlineData, fileData, functionCall or functionResponse).`, at);
  });
  return { content, calls, results };
}

const simplified = (content: ContentPart[]): ChatMessage['content'] =>
  content.every((part) => part.type === 'text') ? content.map((part) => (part as { text: string }).text).join('') : content;

/** `contents` → the conversation's chat messages. */
export function contentsToMessages(contents: unknown): ChatMessage[] {
  if (!Array.isArray(contents) || contents.length === 0) throw invalidValue("'contents' must be a non-empty array.", 'contents');
  const book = new CallBook();
  const messages: ChatMessage[] = [];
  contents.forEach((turn: unknown, i) => {
    const where = `contents[${i}]`;
    if (!isObject(turn)) throw invalidValue(`'${where}' must be an object.`, where);
    refuseUnknown(turn, new Set(['role', 'parts']), where);
    const role = turn.role ?? 'user';
    if (role !== 'user' && role !== 'model') throw invalidValue(`'${where}.role' must be 'user' or 'model'.`, `${where}.role`);
    const { content, calls, results } = readParts(turn.parts, where, book);
    if (role === 'model') {
      if (results.length) throw invalidValue(`A functionResponse belongs in a 'user' turn ('${where}').`, where);
      if (content.some((part) => part.type !== 'text')) throw unsupportedParameter(`A 'model' turn carries text and function calls only here ('${where}').`, where);
      const message: ChatMessage = { role: 'assistant', content: content.length ? simplified(content) : calls.length ? null : '' };
      if (calls.length) message.tool_calls = calls;
      messages.push(message);
      return;
    }
    if (calls.length) throw invalidValue(`A functionCall belongs in a 'model' turn ('${where}').`, where);
    messages.push(...results);
    if (content.length) messages.push({ role: 'user', content: simplified(content) });
  });
  return messages;
}

/** `systemInstruction` (a Content of text parts) → the system prompt, or undefined. */
export function systemText(instruction: unknown): string | undefined {
  if (instruction === undefined) return undefined;
  if (!isObject(instruction)) throw invalidValue("'systemInstruction' must be a Content object with text parts.", 'systemInstruction');
  refuseUnknown(instruction, new Set(['role', 'parts']), 'systemInstruction');
  const parts = instruction.parts;
  if (!Array.isArray(parts)) throw invalidValue("'systemInstruction.parts' must be an array.", 'systemInstruction.parts');
  return parts
    .map((part: unknown, j) => {
      if (!isObject(part) || typeof part.text !== 'string' || Object.keys(part).some((key) => key !== 'text'))
        throw unsupportedParameter('The system instruction carries text parts only here.', `systemInstruction.parts[${j}]`);
      return part.text;
    })
    .join('\n');
}
