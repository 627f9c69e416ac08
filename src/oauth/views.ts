/**
 * The HTML pages of the authorization flow: login, consent and error. Plain forms, no scripts,
 * so any user agent (or a test driving fetch) can submit them.
 */
import { describeScope } from './scopes.ts';

const escape = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem}
label,input,button{display:block;width:100%;margin:.4rem 0}input{padding:.5rem}button{padding:.6rem}
.error{color:#b00020}ul{padding-left:1.2rem}</style></head>
<body><h1>${escape(title)}</h1>
${body}
</body></html>`;
}

/** The sign-in form; `error` is shown above it after a failed attempt. */
export function loginPage(options: { action: string; clientName: string; email?: string; error?: string }): string {
  const error = options.error ? `<p class="error" role="alert">${escape(options.error)}</p>` : '';
  return page(
    'Sign in',
    `<p>Sign in to continue to <strong>${escape(options.clientName)}</strong>.</p>
${error}<form method="post" action="${escape(options.action)}">
<input type="hidden" name="action" value="login">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escape(options.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<form method="post" action="${escape(options.action)}"><input type="hidden" name="action" value="abort"><button type="submit">Cancel</button></form>`,
  );
}

/** The consent form listing the scopes the client asks for. */
export function consentPage(options: { action: string; clientName: string; account: string; scopes: string[] }): string {
  const items = options.scopes.map((scope) => `<li><code>${escape(scope)}</code>: ${escape(describeScope(scope))}</li>`).join('\n');
  return page(
    'Authorize access',
    `<p><strong>${escape(options.clientName)}</strong> asks to access your account <strong>${escape(options.account)}</strong>:</p>
<ul>
${items || '<li>No particular permission</li>'}
</ul>
<form method="post" action="${escape(options.action)}"><input type="hidden" name="action" value="consent"><button type="submit">Allow</button></form>
<form method="post" action="${escape(options.action)}"><input type="hidden" name="action" value="abort"><button type="submit">Deny</button></form>`,
  );
}

export function errorPage(message: string): string {
  return page('Authorization error', `<p class="error">${escape(message)}</p>`);
}

/** An HTML answer; these pages must never be cached or framed. */
export const html = (body: string, status = 200) =>
  new Response(body, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
      // No form-action: browsers apply it to the redirect chain that ends at the client's redirect_uri.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    },
  });
