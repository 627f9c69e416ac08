/**
 * The texts of the OAuth pages (sign-in, consent, errors) in each supported language. Plain
 * text only: the views escape every string and put `{client}` / `{account}` in bold.
 */
import { PLATFORM_SCOPES } from '../oauth/scopes.ts';
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
    tooManyAttempts: string;
    wrongCredentials: string;
    signInFirst: string;
    stepMismatch: string;
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
  scopes: { openid: 'Know who you are (your account id)', ...PLATFORM_SCOPES },
  errors: {
    cannotRun: 'This server cannot run the authorization flow.',
    expired: 'This sign-in request has expired or is unknown. Start again from the application.',
    sessionMismatch: 'This sign-in request does not match your browser session. Start again.',
    clientGone: 'The application is no longer registered.',
    unsupportedStep: 'This step of the sign-in is not supported.',
    formTooLarge: 'The form is too large.',
    missingCredentials: 'Enter your email and password.',
    tooManyAttempts: 'Too many failed sign-in attempts. Wait a minute and try again.',
    wrongCredentials: 'Wrong email or password.',
    signInFirst: 'Sign in first.',
    stepMismatch: 'This step does not match the sign-in request. Start again.',
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
  scopes: {
    openid: '知道您是谁（您的账户 ID）',
    'read:user': '读取您的用户信息和安全设置',
    'write:user': '修改您的用户信息和安全设置',
    'read:api': '读取您的 API 密钥和 API 用量',
    'write:api': '创建、修改、轮换和删除您的 API 密钥',
    'read:billing': '读取您的账单信息（费用、导出）',
    'write:billing': '管理充值和订阅',
  },
  errors: {
    cannotRun: '此服务器无法执行授权流程。',
    expired: '此登录请求已过期或不存在，请从应用重新开始。',
    sessionMismatch: '此登录请求与您的浏览器会话不符，请重新开始。',
    clientGone: '该应用已不再注册。',
    unsupportedStep: '不支持此登录步骤。',
    formTooLarge: '表单过大。',
    missingCredentials: '请输入邮箱和密码。',
    tooManyAttempts: '登录失败次数过多，请一分钟后再试。',
    wrongCredentials: '邮箱或密码错误。',
    signInFirst: '请先登录。',
    stepMismatch: '此步骤与登录请求不符，请重新开始。',
  },
};

const TEXTS: Record<Language, OAuthPageTexts> = { en, zh };

export const oauthPageTexts = (language: Language): OAuthPageTexts => TEXTS[language];

/** HTML lang attribute of each language. */
export const HTML_LANG: Record<Language, string> = { en: 'en', zh: 'zh-CN' };
