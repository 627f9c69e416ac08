/**
 * The texts of every email (and SMS) the gateway sends, in each supported language. An entry is
 * a function of the figures it shows, so word order can differ between languages.
 */
import type { Language } from './language.ts';

export interface WeeklyFigures {
  start: string;
  end: string;
  timezone: string;
  account: string;
  requests: number;
  tokens: number;
  prompt: number;
  completion: number;
  cost: string;
  top: string[];
}

/** What a login alert tells: whether the device or only the address is new, when, from where. */
export interface LoginAlertFigures {
  newDevice: boolean;
  at: string;
  address: string;
  device: string;
}

export interface EmailTexts {
  codeSubject: string;
  codeText(code: string, minutes: number): string;
  codeSms(code: string, minutes: number): string;
  /** The one-time code that passes a sign-in form locked for the account. */
  signInCodeSubject: string;
  signInCodeText(code: string, minutes: number): string;
  loginAlertSubject: string;
  loginAlertText(f: LoginAlertFigures): string;
  usageSubject(level: number, group: string): string;
  usageText(account: string, used: number, limit: number, group: string, percent: number, exhausted: boolean): string;
  lowBalanceSubject(balance: number): string;
  lowBalanceText(group: string, balance: number, threshold: number): string;
  weeklySubject(start: string, end: string): string;
  weeklyText(f: WeeklyFigures): string;
  topModel(model: string, requests: number, tokens: number, percentage: number): string;
}

const en: EmailTexts = {
  codeSubject: 'Your verification code',
  codeText: (code, minutes) => `Your verification code is ${code}. It expires in ${minutes} minutes.\nIf you did not ask for it, ignore this message.`,
  codeSms: (code, minutes) => `Your verification code is ${code}. It expires in ${minutes} minutes.`,
  signInCodeSubject: 'Your sign-in code',
  signInCodeText: (code, minutes) =>
    `Your sign-in code is ${code}. It expires in ${minutes} minutes.\n` +
    'Someone (hopefully you) could not sign in because of many failed attempts on your account. If it was not you, change your password.',
  loginAlertSubject: 'New sign-in to your account',
  loginAlertText: (f) =>
    `Your account signed in from ${f.newDevice ? 'a new device' : 'a new address'} at ${f.at}.\nAddress: ${f.address}\nDevice: ${f.device}\n` +
    'If this was not you, change your password and revoke the device in your security settings.',
  usageSubject: (level, group) => (level >= 100 ? `Quota used up: group ${group}` : `Usage alert: ${level}% of your quota used`),
  usageText: (account, used, limit, group, percent, exhausted) =>
    `Your account ${account} has used ${used} of the ${limit} tokens of group ${group} (${percent}%).\n` +
    (exhausted ? 'Further calls are refused until the quota is raised or reset.\n' : ''),
  lowBalanceSubject: (balance) => `Low balance: ${balance} tokens left`,
  lowBalanceText: (group, balance, threshold) => `The quota of group ${group} has ${balance} tokens left, below your threshold of ${threshold}.\n`,
  weeklySubject: (start, end) => `Your weekly usage report ${start} to ${end}`,
  weeklyText: (f) =>
    [
      `Week ${f.start} to ${f.end} (${f.timezone}) for account ${f.account}:`,
      `Requests: ${f.requests}`,
      `Tokens: ${f.tokens} (prompt ${f.prompt}, completion ${f.completion})`,
      `Cost: ${f.cost}`,
      ...(f.top.length ? ['Top models:', ...f.top] : []),
      '',
    ].join('\n'),
  topModel: (model, requests, tokens, percentage) => `  ${model}: ${requests} requests, ${tokens} tokens (${percentage}%)`,
};

const zh: EmailTexts = {
  codeSubject: '您的验证码',
  codeText: (code, minutes) => `您的验证码是 ${code}，${minutes} 分钟内有效。\n如果这不是您本人的操作，请忽略本邮件。`,
  codeSms: (code, minutes) => `您的验证码是 ${code}，${minutes} 分钟内有效。`,
  signInCodeSubject: '您的登录码',
  signInCodeText: (code, minutes) =>
    `您的登录码是 ${code}，${minutes} 分钟内有效。\n` + '有人（希望是您本人）因您的账户登录失败次数过多而无法登录。如果这不是您本人的操作，请修改密码。',
  loginAlertSubject: '您的账户有新的登录',
  loginAlertText: (f) =>
    `您的账户于 ${f.at} 从${f.newDevice ? '新设备' : '新地址'}登录。\n地址：${f.address}\n设备：${f.device}\n` +
    '如果这不是您本人的操作，请修改密码，并在安全设置中撤销该设备。',
  usageSubject: (level, group) => (level >= 100 ? `配额已用完：分组 ${group}` : `用量提醒：已使用配额的 ${level}%`),
  usageText: (account, used, limit, group, percent, exhausted) =>
    `您的账户 ${account} 已使用分组 ${group} 的 ${limit} 个 token 中的 ${used} 个（${percent}%）。\n` +
    (exhausted ? '在配额提高或重置之前，后续调用将被拒绝。\n' : ''),
  lowBalanceSubject: (balance) => `余额不足：剩余 ${balance} 个 token`,
  lowBalanceText: (group, balance, threshold) => `分组 ${group} 的配额剩余 ${balance} 个 token，低于您设置的阈值 ${threshold}。\n`,
  weeklySubject: (start, end) => `您的每周用量报告 ${start} 至 ${end}`,
  weeklyText: (f) =>
    [
      `账户 ${f.account} 在 ${f.start} 至 ${f.end}（${f.timezone}）的用量：`,
      `请求数：${f.requests}`,
      `Token 数：${f.tokens}（输入 ${f.prompt}，输出 ${f.completion}）`,
      `费用：${f.cost}`,
      ...(f.top.length ? ['最常用的模型：', ...f.top] : []),
      '',
    ].join('\n'),
  topModel: (model, requests, tokens, percentage) => `  ${model}：${requests} 次请求，${tokens} 个 token（${percentage}%）`,
};

const TEXTS: Record<Language, EmailTexts> = { en, zh };

export const emailTexts = (language: Language): EmailTexts => TEXTS[language];
