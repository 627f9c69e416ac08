/**
 * The HTML pages of the authorization flow: login, second factor, consent and error, in the
 * reader's language (texts in src/i18n/oauth-pages.ts). Plain forms, no scripts, so any user
 * agent (or a test driving fetch) can submit them.
 */
import type { Language } from '../../i18n/language.ts';
import { HTML_LANG, oauthPageTexts, type OAuthPageTexts } from '../../i18n/oauth-pages.ts';
import { PAGE_STYLE } from './page-style.ts';

export type PageError = keyof OAuthPageTexts['errors'];

const escape = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A translated sentence with its `{name}` placeholders filled in bold (all parts escaped). */
const sentence = (text: string, values: Record<string, string>) =>
  escape(text).replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? `<strong>${escape(values[name]!)}</strong>` : whole));

/** A form that is only one button posting `action` (cancel, deny, allow...); `target` is already escaped. */
const actionButton = (target: string, action: string, label: string, primary = false) =>
  `<form method="post" action="${target}"><input type="hidden" name="action" value="${action}"><button type="submit"${primary ? ' class="primary"' : ''}>${escape(label)}</button></form>`;

/** An error sentence above a form or alone on its page. */
const errorAlert = (text: string) => `<p class="alert error" role="alert">${escape(text)}</p>`;

/** A page in the console's look (page-style.ts): the gateway's bar, then a card with the title and `body`. */
function page(language: Language, title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="${HTML_LANG[language]}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escape(title)}</title>
<style>${PAGE_STYLE}</style></head>
<body><header class="brand">LLM gateway</header>
<main><h1>${escape(title)}</h1>
${body}
</main>
</body></html>`;
}

/**
 * The sign-in form; `error` is shown above it after a failed attempt. With `offerCode` (the
 * account's throttle is in the way) it also takes a one-time code mailed on request; `codeSent`
 * says one was asked for.
 */
export function loginPage(options: { language: Language; action: string; clientName: string; email?: string; error?: PageError; offerCode?: boolean; codeSent?: boolean }): string {
  const t = oauthPageTexts(options.language);
  const error = options.error
    ? errorAlert(t.errors[options.error])
    : options.codeSent
      ? `<p class="alert info" role="status">${escape(t.signInCodeSent)}</p>`
      : '';
  const action = escape(options.action);
  const email = escape(options.email ?? '');
  const codeInput = options.offerCode
    ? `<label for="code">${escape(t.signInCode)}</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}">`
    : '';
  const mailCode = options.offerCode
    ? `<form method="post" action="${action}"><input type="hidden" name="action" value="email-code"><input type="hidden" name="email" value="${email}"><button type="submit">${escape(t.emailSignInCode)}</button></form>`
    : '';
  return page(
    options.language,
    t.signInTitle,
    `<p>${sentence(t.signInIntro, { client: options.clientName })}</p>
${error}<form method="post" action="${action}">
<input type="hidden" name="action" value="login">
<label for="email">${escape(t.email)}</label><input id="email" name="email" type="email" autocomplete="username" required value="${email}"${email ? '' : ' autofocus'}>
<label for="password">${escape(t.password)}</label><input id="password" name="password" type="password" autocomplete="current-password" required${email ? ' autofocus' : ''}>
${codeInput}<div class="buttons"><button type="submit" class="primary">${escape(t.signIn)}</button></div>
</form>
<div class="buttons">${mailCode}${actionButton(action, 'abort', t.cancel)}</div>`,
  );
}

/** The second step with two-factor authentication on: a code of the authenticator app, or a recovery code in its place. */
export function secondFactorPage(options: { language: Language; action: string; clientName: string; error?: PageError }): string {
  const t = oauthPageTexts(options.language);
  const error = options.error ? errorAlert(t.errors[options.error]) : '';
  const action = escape(options.action);
  return page(
    options.language,
    t.secondFactorTitle,
    `<p>${sentence(t.secondFactorIntro, { client: options.clientName })}</p>
${error}<form method="post" action="${action}">
<input type="hidden" name="action" value="second-factor">
<label for="code">${escape(t.authenticatorCode)}</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required autofocus>
<div class="buttons"><button type="submit" class="primary">${escape(t.verify)}</button></div>
</form>
<h2>${escape(t.recoveryTitle)}</h2>
<p>${escape(t.recoveryIntro)}</p>
<form method="post" action="${action}">
<input type="hidden" name="action" value="recovery-code">
<label for="recovery_code">${escape(t.recoveryCode)}</label><input id="recovery_code" name="recovery_code" autocomplete="off" autocapitalize="none" spellcheck="false" required>
<div class="buttons"><button type="submit">${escape(t.useRecoveryCode)}</button></div>
</form>
<div class="buttons">${actionButton(action, 'abort', t.cancel)}</div>`,
  );
}

/** The consent form listing the scopes the client asks for. */
export function consentPage(options: { language: Language; action: string; clientName: string; account: string; scopes: string[] }): string {
  const t = oauthPageTexts(options.language);
  const items = options.scopes.map((scope) => `<li><code>${escape(scope)}</code>: ${escape(t.scopes[scope] ?? scope)}</li>`).join('\n');
  return page(
    options.language,
    t.consentTitle,
    `<p>${sentence(t.consentIntro, { client: options.clientName, account: options.account })}</p>
<ul>
${items || `<li>${escape(t.noPermission)}</li>`}
</ul>
<div class="buttons">${actionButton(escape(options.action), 'consent', t.allow, true)}
${actionButton(escape(options.action), 'abort', t.deny)}</div>`,
  );
}

/** An error page; `detail` (shown as written, escaped) is what another system said, e.g. an IdP's reason. */
export function errorPage(language: Language, error: PageError, detail?: string): string {
  const t = oauthPageTexts(language);
  const more = detail ? `\n<p class="detail">${escape(detail)}</p>` : '';
  return page(language, t.errorTitle, `${errorAlert(t.errors[error])}${more}`);
}

/**
 * The error page of an OAuth request the provider refused (its `renderError`): the code and the
 * description it gives (`invalid_client`, "client is invalid"), shown as written, escaped.
 */
export function oauthErrorPage(language: Language, out: { error?: unknown; error_description?: unknown }): string {
  const t = oauthPageTexts(language);
  const description = out.error_description ? `${errorAlert(String(out.error_description))}\n` : '';
  return page(language, t.errorTitle, `${description}<p><code>${escape(String(out.error ?? 'server_error'))}</code></p>`);
}

/** The headers of every page: never cached or framed. */
export const HTML_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  // No form-action: browsers apply it to the redirect chain that ends at the client's redirect_uri.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
};

/** An HTML answer; these pages must never be cached or framed. */
export const html = (body: string, status = 200) => new Response(body, { status, headers: HTML_HEADERS });
