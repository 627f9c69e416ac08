/**
 * What every answer of the gateway must satisfy, whatever was sent: no 5xx (except the
 * documented "not configured" 503s), and every error in the OpenAI shape, exactly
 * `{"error":{"message","type","param","code"}}`.
 */
import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import { secretsPathFor } from '../../src/config/secrets.ts';

export interface Answer {
  status: number;
  text: string;
  headers: Headers;
}

/** 503s the gateway gives on purpose when a feature is not configured. */
const NOT_CONFIGURED = new Set(['email_not_configured', 'sms_not_configured']);

/** Sends a request and reads the whole answer (streams too). */
export async function send(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, { redirect: 'manual', ...init });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

function errorOf(answer: Answer): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new Error(`error answer ${answer.status} is not JSON: ${answer.text.slice(0, 200)}`);
  }
  expect(Object.keys(body as object), answer.text).toEqual(['error']);
  return (body as { error: Record<string, unknown> }).error;
}

/** Asserts an answer of the gateway's own API (inference, management). */
export function expectGatewayAnswer(answer: Answer, what: string): void {
  if (answer.status >= 500) {
    const code = answer.status === 503 ? (JSON.parse(answer.text) as { error?: { code?: string } }).error?.code : undefined;
    if (!code || !NOT_CONFIGURED.has(code)) throw new Error(`${what} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  }
  if (answer.status < 400) return;
  const error = errorOf(answer);
  expect(Object.keys(error).sort(), `${what}: ${answer.text}`).toEqual(['code', 'message', 'param', 'type']);
  expect(typeof error.message, what).toBe('string');
  expect(typeof error.type, what).toBe('string');
  expect(error.param === null || typeof error.param === 'string', what).toBe(true);
  expect(error.code === null || typeof error.code === 'string', what).toBe(true);
}

/** Asserts an answer of an OAuth endpoint: no 5xx; errors in the OAuth form `{error, error_description}`. */
export function expectOAuthAnswer(answer: Answer, what: string): void {
  if (answer.status >= 500) throw new Error(`${what} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  if (answer.status < 400 || !(answer.headers.get('content-type') ?? '').includes('json')) return;
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  expect(typeof body.error, `${what}: ${answer.text}`).toBe('string');
}

/** What a refused request must leave alone: the config file and the secrets beside it. */
export async function storedFiles(configFile: string): Promise<string> {
  const secrets = await readFile(secretsPathFor(configFile), 'utf8').catch(() => '');
  return `${await readFile(configFile, 'utf8')}\n--\n${secrets}`;
}
