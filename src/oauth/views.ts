/**
 * The HTML pages of the authorization flow: login, second factor, consent and error. Plain forms, no scripts,
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

/**
 * The sign-in form; `error` is shown above it after a failed attempt. With `offerCode` (the
 * account's throttle is in the way) it also takes a one-time code mailed on request.
 */
export function loginPage(options: { action: string; clientName: string; email?: string; error?: string; offerCode?: boolean }): string {
  const error = options.error ? `<p class="error" role="alert">${escape(options.error)}</p>` : '';
  const action = escape(options.action);
  const email = escape(options.email ?? '');
  const codeInput = options.offerCode
    ? '<label for="code">Sign-in code from your email</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}">'
    : '';
  const mailCode = options.offerCode
    ? `<form method="post" action="${action}"><input type="hidden" name="action" value="email-code"><input type="hidden" name="email" value="${email}"><button type="submit">Email me a sign-in code</button></form>`
    : '';
  return page(
    'Sign in',
    `<p>Sign in to continue to <strong>${escape(options.clientName)}</strong>.</p>
${error}<form method="post" action="${action}">
<input type="hidden" name="action" value="login">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${email}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
${codeInput}<button type="submit">Sign in</button>
</form>
${mailCode}<form method="post" action="${action}"><input type="hidden" name="action" value="abort"><button type="submit">Cancel</button></form>`,
  );
}

/** The second step with two-factor authentication on: a code of the authenticator app. */
export function secondFactorPage(options: { action: string; clientName: string; error?: string }): string {
  const error = options.error ? `<p class="error" role="alert">${escape(options.error)}</p>` : '';
  const action = escape(options.action);
  return page(
    'Two-factor authentication',
    `<p>Enter the code of your authenticator app to continue to <strong>${escape(options.clientName)}</strong>.</p>
${error}<form method="post" action="${action}">
<input type="hidden" name="action" value="second-factor">
<label for="code">Authentication code</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required>
<button type="submit">Verify</button>
</form>
<form method="post" action="${action}"><input type="hidden" name="action" value="abort"><button type="submit">Cancel</button></form>`,
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
