/**
 * The texts of the OAuth pages (sign-in, consent, errors) in each supported language. Plain
 * text only: the views escape every string and put `{client}` / `{account}` in bold.
 */
import { PLATFORM_SCOPES } from '../auth/scopes.ts';
import type { Language } from './language.ts';

export interface OAuthPageTexts {
  signInTitle: string;
  signInIntro: string;
  email: string;
  password: string;
  signIn: string;
  cancel: string;
  consentTitle: string;
  consentIntro: string;
  noPermission: string;
  allow: string;
  deny: string;
  errorTitle: string;
  secondFactorTitle: string;
  secondFactorIntro: string;
  authenticatorCode: string;
  verify: string;
  /** The second-factor page's other way through: a recovery code, when the authenticator is lost. */
  recoveryTitle: string;
  recoveryIntro: string;
  recoveryCode: string;
  useRecoveryCode: string;
  /** The field for the one-time code mailed past a locked sign-in form, and the button asking for it. */
  signInCode: string;
  emailSignInCode: string;
  /** Shown (in the error slot) after a sign-in code was asked for. */
  signInCodeSent: string;
  /** What the consent page says about each scope. */
  scopes: Record<string, string>;
  errors: {
    cannotRun: string;
    expired: string;
    sessionMismatch: string;
    clientGone: string;
    unsupportedStep: string;
    formTooLarge: string;
    missingCredentials: string;
    wrongCredentials: string;
    signInFirst: string;
    stepMismatch: string;
    /** The per-address limit on the OAuth pages (management.rate_limit). */
    tooManyRequests: string;
    /** Failed sign-ins: the address's throttle, the email's throttle (a mailed code passes it). */
    networkLocked: string;
    accountLocked: string;
    wrongSignInCode: string;
    /** The password hashes are all taken (503). */
    busy: string;
    signInAgain: string;
    accountGone: string;
    wrongSecondFactor: string;
    tooManySecondFactor: string;
    wrongRecoveryCode: string;
    ssoNotConfigured: string;
    ssoExpired: string;
    ssoSessionMismatch: string;
    ssoUnreachable: string;
    ssoNotStarted: string;
    ssoIncomplete: string;
    ssoRefused: string;
    /** The identity provider refused the gateway's client (scope, client id, secret): not the person's fault. */
    ssoMisconfigured: string;
  };
}

const en: OAuthPageTexts = {
  signInTitle: 'Sign in',
  signInIntro: 'Sign in to continue to {client}.',
  email: 'Email',
  password: 'Password',
  signIn: 'Sign in',
  cancel: 'Cancel',
  consentTitle: 'Authorize access',
  consentIntro: '{client} asks to access your account {account}:',
  noPermission: 'No particular permission',
  allow: 'Allow',
  deny: 'Deny',
  errorTitle: 'Authorization error',
  secondFactorTitle: 'Two-factor authentication',
  secondFactorIntro: 'Enter the code of your authenticator app to continue to {client}.',
  authenticatorCode: 'Authentication code',
  verify: 'Verify',
  recoveryTitle: 'Lost your authenticator?',
  recoveryIntro: 'Enter one of the recovery codes you saved when you set up two-factor authentication. Each code works once.',
  recoveryCode: 'Recovery code',
  useRecoveryCode: 'Use the recovery code',
  signInCode: 'Sign-in code from your email',
  emailSignInCode: 'Email me a sign-in code',
  signInCodeSent: 'If this email has an account, a sign-in code is on its way. Enter it with your password.',
  scopes: {
    openid: 'Know who you are (your account id)',
    email: 'See your email address and whether it is verified',
    profile: 'See your name, role and group',
    ...PLATFORM_SCOPES,
  },
  errors: {
    cannotRun: 'This server cannot run the authorization flow.',
    expired: 'This sign-in request has expired or is unknown. Start again from the application.',
    sessionMismatch: 'This sign-in request does not match your browser session. Start again.',
    clientGone: 'The application is no longer registered.',
    unsupportedStep: 'This step of the sign-in is not supported.',
    formTooLarge: 'The form is too large.',
    missingCredentials: 'Enter your email and password.',
    wrongCredentials: 'Wrong email or password.',
    signInFirst: 'Sign in first.',
    stepMismatch: 'This step does not match the sign-in request. Start again.',
    tooManyRequests: 'Too many requests from your network. Wait a moment and try again.',
    networkLocked: 'Too many failed sign-ins from your network. Try again later.',
    accountLocked: 'Too many failed sign-ins for this account. Try again later, or have a one-time sign-in code emailed to you.',
    wrongSignInCode: 'The sign-in code is wrong or expired. Ask for a new one.',
    busy: 'Too many sign-ins are being checked right now. Try again in a moment.',
    signInAgain: 'Sign in again.',
    accountGone: 'This account no longer exists.',
    wrongSecondFactor: 'Wrong code. Enter the current code of your authenticator app.',
    tooManySecondFactor: 'Too many wrong two-factor codes. Wait and try again.',
    wrongRecoveryCode: 'That recovery code is wrong or was already used.',
    ssoNotConfigured: 'Single sign-on is not configured on this gateway.',
    ssoExpired: 'This sign-in has expired or is unknown. Start again from the console.',
    ssoSessionMismatch: 'This sign-in request does not match your browser session. Start again from the console.',
    ssoUnreachable: 'The company sign-in service cannot be reached at the address configured for it (console.sso.issuer). Try again later or sign in with your gateway account.',
    ssoNotStarted: 'This sign-in was not started in this browser. Start again from the console.',
    ssoIncomplete: 'The company sign-in did not complete. Start again from the console.',
    ssoRefused: 'The company sign-in refused this account.',
    ssoMisconfigured:
      'Single sign-on is not set up correctly: the company sign-in service refused this gateway, not your account. An administrator must check console.sso in gateway.yaml against the client registered at the identity provider. Meanwhile, sign in with your gateway account.',
  },
};

const zh: OAuthPageTexts = {
  signInTitle: '登录',
  signInIntro: '登录以继续使用 {client}。',
  email: '邮箱',
  password: '密码',
  signIn: '登录',
  cancel: '取消',
  consentTitle: '授权访问',
  consentIntro: '{client} 请求访问您的账户 {account}：',
  noPermission: '无特定权限',
  allow: '允许',
  deny: '拒绝',
  errorTitle: '授权错误',
  secondFactorTitle: '双重验证',
  secondFactorIntro: '请输入身份验证器应用中的验证码，以继续使用 {client}。',
  authenticatorCode: '身份验证码',
  verify: '验证',
  recoveryTitle: '身份验证器丢失？',
  recoveryIntro: '请输入您在启用双重验证时保存的恢复码之一。每个恢复码只能使用一次。',
  recoveryCode: '恢复码',
  useRecoveryCode: '使用恢复码',
  signInCode: '邮件中的登录码',
  emailSignInCode: '通过邮件发送登录码',
  signInCodeSent: '如果此邮箱有对应的账户，登录码已发出。请将其与密码一起输入。',
  scopes: {
    openid: '知道您是谁（您的账户 ID）',
    email: '查看您的邮箱地址及其是否已验证',
    profile: '查看您的姓名、角色和用户组',
    'read:user': '读取您的用户信息和安全设置',
    'write:user': '修改您的用户信息和安全设置',
    'read:api': '读取您的 API 密钥、API 用量、模型和调用日志',
    'write:api': '创建、修改、轮换和删除您的 API 密钥，并以您的账户调用模型',
    'read:billing': '读取您的账单信息（费用、导出）',
  },
  errors: {
    cannotRun: '此服务器无法执行授权流程。',
    expired: '此登录请求已过期或不存在，请从应用重新开始。',
    sessionMismatch: '此登录请求与您的浏览器会话不符，请重新开始。',
    clientGone: '该应用已不再注册。',
    unsupportedStep: '不支持此登录步骤。',
    formTooLarge: '表单过大。',
    missingCredentials: '请输入邮箱和密码。',
    wrongCredentials: '邮箱或密码错误。',
    signInFirst: '请先登录。',
    stepMismatch: '此步骤与登录请求不符，请重新开始。',
    tooManyRequests: '来自您网络的请求过多，请稍后再试。',
    networkLocked: '来自您网络的登录失败次数过多，请稍后再试。',
    accountLocked: '此账户的登录失败次数过多。请稍后再试，或通过邮件获取一次性登录码。',
    wrongSignInCode: '登录码错误或已过期，请重新获取。',
    busy: '当前正在验证的登录过多，请稍后再试。',
    signInAgain: '请重新登录。',
    accountGone: '此账户已不存在。',
    wrongSecondFactor: '验证码错误。请输入身份验证器应用中的当前验证码。',
    tooManySecondFactor: '双重验证码错误次数过多，请稍后再试。',
    wrongRecoveryCode: '恢复码错误或已被使用。',
    ssoNotConfigured: '此网关未配置单点登录。',
    ssoExpired: '此登录请求已过期或不存在，请从控制台重新开始。',
    ssoSessionMismatch: '此登录请求与您的浏览器会话不符，请从控制台重新开始。',
    ssoUnreachable: '无法连接公司登录服务，请稍后再试，或使用网关账户登录。',
    ssoNotStarted: '此登录并非在此浏览器中发起，请从控制台重新开始。',
    ssoIncomplete: '公司登录未完成，请从控制台重新开始。',
    ssoRefused: '公司登录拒绝了此账户。',
    ssoMisconfigured: '单点登录配置有误：公司登录服务拒绝的是此网关，而不是您的账户。请管理员核对 gateway.yaml 中的 console.sso 与身份提供方处登记的客户端。在此期间，请使用网关账户登录。',
  },
};

const TEXTS: Record<Language, OAuthPageTexts> = { en, zh };

export const oauthPageTexts = (language: Language): OAuthPageTexts => TEXTS[language];

/** HTML lang attribute of each language. */
export const HTML_LANG: Record<Language, string> = { en: 'en', zh: 'zh-CN' };
