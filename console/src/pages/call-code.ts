/**
 * A chat call as code to copy: curl, the openai SDK for Python and for Node. The credential is
 * always a placeholder read from the environment ($GATEWAY_API_KEY), never the console's token:
 * a snippet pasted into a chat or a ticket must not carry a working secret.
 */

export type CodeKind = 'curl' | 'python' | 'node';

export const CODE_KINDS: Array<[CodeKind, string]> = [
  ['curl', 'curl'],
  ['python', 'Python (openai)'],
  ['node', 'Node (openai)'],
];

export const KEY_PLACEHOLDER = 'GATEWAY_API_KEY';

/** A shell single-quoted word: ' closes, \' adds a quote, ' opens again. */
const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** Python literals for a JSON value (true/false/null differ). */
function python(value: unknown, indent = ''): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const inner = `${indent}    `;
    return `[\n${value.map((v) => `${inner}${python(v, inner)}`).join(',\n')},\n${indent}]`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '{}';
    const inner = `${indent}    `;
    return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${python(v, inner)}`).join(',\n')},\n${indent}}`;
  }
  return JSON.stringify(value);
}

/** `body` as code of `kind` against `baseUrl` (e.g. https://gateway.example/api/v1). */
export function callCode(kind: CodeKind, baseUrl: string, body: Record<string, unknown>): string {
  const { stream_options: _ignored, ...sdkBody } = body;
  switch (kind) {
    case 'curl':
      return [
        `curl ${shellQuote(`${baseUrl}/chat/completions`)} \\`,
        `  -H "Authorization: Bearer $${KEY_PLACEHOLDER}" \\`,
        `  -H 'Content-Type: application/json' \\`,
        `  -d ${shellQuote(JSON.stringify(body, null, 2))}`,
      ].join('\n');
    case 'python': {
      const args = Object.entries(sdkBody).map(([k, v]) => `    ${k}=${python(v, '    ')},`);
      return [
        'import os',
        'from openai import OpenAI',
        '',
        `client = OpenAI(base_url=${JSON.stringify(baseUrl)}, api_key=os.environ[${JSON.stringify(KEY_PLACEHOLDER)}])`,
        '',
        'response = client.chat.completions.create(',
        ...args,
        ')',
        body.stream ? 'for chunk in response:\n    print(chunk.choices[0].delta.content or "", end="")' : 'print(response.choices[0].message.content)',
      ].join('\n');
    }
    case 'node':
      return [
        "import OpenAI from 'openai';",
        '',
        `const client = new OpenAI({ baseURL: ${JSON.stringify(baseUrl)}, apiKey: process.env.${KEY_PLACEHOLDER} });`,
        '',
        `const response = await client.chat.completions.create(${JSON.stringify(sdkBody, null, 2)});`,
        body.stream
          ? "for await (const chunk of response) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');"
          : 'console.log(response.choices[0].message.content);',
      ].join('\n');
  }
}
