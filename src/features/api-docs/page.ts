/**
 * GET /v1/docs: the operations of /v1/openapi.json as a page, with nothing loaded from elsewhere
 * (no CDN: the gateway may run where the internet is not reachable). Plain script and style in
 * the page, in the console's colours; the Content-Security-Policy allows exactly these two by
 * hash, and connections back to this gateway only.
 */
import { createHash } from 'node:crypto';

const STYLE = `
:root { --bg:#f5f6f8; --panel:#fff; --text:#1c2230; --muted:#4d5566; --line:#d5d9e0; --accent:#1f5fc9;
  font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; font-size: 15px; line-height: 1.45; color: var(--text); background: var(--bg); }
@media (prefers-color-scheme: dark) { :root { --bg:#12161f; --panel:#1b2130; --text:#e6e9ef; --muted:#a9b1c1; --line:#323a4d; --accent:#7fb0ff; } }
body { margin: 0; }
header { padding: .6rem 1.2rem; background: #18233a; color: #fff; font-weight: 600; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem 1.2rem 3rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .3rem; }
.muted { color: var(--muted); }
code, .path { font-family: ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace; font-size: .85rem; }
details { background: var(--panel); border: 1px solid var(--line); border-radius: .4rem; margin: .35rem 0; }
summary { cursor: pointer; padding: .45rem .7rem; display: flex; gap: .7rem; align-items: baseline; }
.method { display: inline-block; min-width: 4rem; font-weight: 600; font-size: .8rem; color: var(--accent); }
.body { padding: 0 .9rem .7rem; border-top: 1px solid var(--line); }
table { border-collapse: collapse; margin: .4rem 0; }
td, th { text-align: left; padding: .2rem .6rem .2rem 0; vertical-align: top; }
pre { overflow: auto; background: var(--bg); padding: .5rem; border-radius: .3rem; max-height: 24rem; }
`;

const SCRIPT = `
const main = document.querySelector('main');
const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
function resolve(doc, schema) {
  const ref = schema && schema.$ref;
  return ref ? doc.components.schemas[ref.split('/').pop()] : schema;
}
function operation(doc, method, path, op) {
  const box = el('details');
  const head = el('summary');
  head.append(el('span', method.toUpperCase(), 'method'), el('span', path, 'path'), el('span', op.summary || '', 'muted'));
  const body = el('div', undefined, 'body');
  if (op.description) body.append(el('p', op.description));
  const scopes = (op.security || []).flatMap((s) => s.oauth2 || []);
  body.append(el('p', op.security && op.security.length ? 'Credential: API key or OAuth token' + (scopes.length ? ' (scope ' + scopes.join(', ') + ')' : '') : 'No credential needed.', 'muted'));
  if (op.parameters && op.parameters.length) {
    const table = el('table');
    table.append(...op.parameters.map((p) => { const row = el('tr'); row.append(el('td', p.name, 'path'), el('td', p.in, 'muted'), el('td', p.description || '')); return row; }));
    body.append(el('h3', 'Parameters'), table);
  }
  const request = op.requestBody && op.requestBody.content['application/json'];
  if (request) {
    const name = request.schema.$ref ? request.schema.$ref.split('/').pop() : '';
    const schema = el('pre');
    schema.textContent = JSON.stringify(resolve(doc, request.schema), null, 2);
    body.append(el('h3', 'Body ' + name), schema);
  }
  body.append(el('h3', 'Answers'), el('p', Object.entries(op.responses).map(([code, r]) => code + ' ' + r.description).join(' \\u00b7 '), 'muted'));
  box.append(head, body);
  return box;
}
fetch('openapi.json').then((r) => r.json()).then((doc) => {
  document.title = doc.info.title + ' API';
  main.replaceChildren(el('h1', doc.info.title + ' API ' + doc.info.version), el('p', doc.info.description, 'muted'));
  const link = el('a', 'openapi.json'); link.href = 'openapi.json';
  main.append(el('p', 'The machine-readable document: ')); main.lastChild.append(link);
  for (const tag of doc.tags) {
    const ops = [];
    for (const [path, item] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(item)) if (op.tags.includes(tag.name)) ops.push(operation(doc, method, path, op));
    if (!ops.length) continue;
    main.append(el('h2', tag.name), el('p', tag.description, 'muted'), ...ops);
  }
}).catch((error) => { main.replaceChildren(el('p', 'Could not load openapi.json: ' + error.message)); });
`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API</title>
<style>${STYLE}</style>
</head>
<body>
<header>LLM gateway API</header>
<main><p>Loading the operations...</p></main>
<script>${SCRIPT}</script>
</body>
</html>
`;

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `default-src 'none'; connect-src 'self'; script-src ${hash(SCRIPT)}; style-src ${hash(STYLE)}; base-uri 'none'; frame-ancestors 'none'; form-action 'none'`,
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-cache',
};

/** The page; relative links, so it works behind a path prefix too. */
export const docsPage = () => new Response(PAGE, { headers: HEADERS });
