/**
 * Security verification routes (spec 4.6): send a one-time code, verify it, read the status;
 * and what the status reports: turn two-factor authentication off (with a code), generate its
 * recovery codes, turn login alerts on or off, revoke a trusted device. Each acts on the caller's own account.
 */
import { invalidBody, invalidValue, notFound } from '../../kernel/errors.ts';
import type { Principal } from '../../pipeline/principal.ts';
import type { SecurityService } from './service.ts';
import { CODE_TYPES, type CodeType } from './types.ts';
import { defineRoutes, type RouteDef } from '../../http/route.ts';
import type { Logger } from '../../pipeline/types.ts';

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;
/** E.164-ish after removing spaces, dashes, dots and parentheses. */
const PHONE = /^\+?[0-9]{6,15}$/;

function objectBody(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalidBody('The request body must be a JSON object.');
  return body as Record<string, unknown>;
}

function codeType(value: unknown): CodeType {
  if (value === undefined) throw invalidBody("Missing required parameter: 'type'.", 'type');
  if (typeof value !== 'string' || !(CODE_TYPES as readonly string[]).includes(value)) {
    throw invalidValue(`Invalid value for 'type': must be one of ${CODE_TYPES.join(', ')}.`, 'type');
  }
  return value as CodeType;
}

function recipientFor(type: CodeType, value: unknown, principal: Principal): string {
  if (type === 'totp') return principal.account?.email ?? principal.accountId;
  if (value === undefined || value === '') throw invalidBody("Missing required parameter: 'recipient'.", 'recipient');
  if (typeof value !== 'string') throw invalidValue("Invalid value for 'recipient': must be a string.", 'recipient');
  const trimmed = value.trim();
  if (type === 'email') {
    if (trimmed.length > 254 || !EMAIL.test(trimmed)) throw invalidValue("Invalid value for 'recipient': must be an email address.", 'recipient');
    return trimmed;
  }
  const phone = trimmed.replace(/[\s().-]/g, '');
  if (!PHONE.test(phone)) throw invalidValue("Invalid value for 'recipient': must be a phone number (e.g. +4915123456789).", 'recipient');
  return phone;
}

function codeValue(value: unknown): string {
  if (value === undefined || value === '') throw invalidBody("Missing required parameter: 'code'.", 'code');
  if (typeof value !== 'string') throw invalidValue("Invalid value for 'code': must be a string of digits.", 'code');
  const code = value.trim();
  if (!/^[0-9]{6}$/.test(code)) throw invalidValue("Invalid value for 'code': must be 6 digits.", 'code');
  return code;
}

/** The RouteDefs of /v1/security/*, bound to a service. */
export function securityRoutes(service: SecurityService, logger: Logger): RouteDef[] {
  return defineRoutes([
    {
      method: 'POST',
      path: '/v1/security/send-code',
      access: 'key',
      handler: ({ body, principal }) => {
        const input = objectBody(body);
        const type = codeType(input.type);
        return service.sendCode(principal.accountId, type, recipientFor(type, input.recipient, principal), principal.account?.email ?? principal.accountId);
      },
    },
    {
      method: 'POST',
      path: '/v1/security/verify',
      access: 'key',
      handler: ({ body, principal }) => {
        const input = objectBody(body);
        const type = codeType(input.type);
        return service.verify(principal.accountId, type, codeValue(input.code));
      },
    },
    {
      method: 'GET',
      path: '/v1/security/status',
      access: 'key',
      handler: ({ principal }) => service.status(principal.accountId),
    },
    {
      method: 'POST',
      path: '/v1/security/two-factor/disable',
      access: 'key',
      async handler({ body, principal }) {
        const disabled = await service.disableTwoFactor(principal.accountId, codeValue(objectBody(body).code));
        return disabled ? { success: true, two_factor_enabled: false } : { success: false, two_factor_enabled: true };
      },
    },
    {
      // Ten new single-use codes for a lost authenticator, shown in this answer only; the old set is void.
      method: 'POST',
      path: '/v1/security/recovery-codes',
      access: 'key',
      handler: ({ principal }) => service.generateRecoveryCodes(principal.accountId),
    },
    {
      method: 'PUT',
      path: '/v1/security/login-alerts',
      access: 'key',
      handler({ body, principal }) {
        const { enabled } = objectBody(body);
        if (typeof enabled !== 'boolean') throw invalidValue("Invalid value for 'enabled': must be true or false.", 'enabled');
        return service.setLoginAlerts(principal.accountId, enabled);
      },
    },
    {
      method: 'DELETE',
      path: '/v1/security/trusted-devices/:id',
      access: 'key',
      handler: ({ params, principal }) => service.revokeDevice(principal.accountId, params.id!),
    },
    {
      // An admin turns a member's second factor off (a lost phone); the log says who did it to whom.
      method: 'POST',
      path: '/v1/admin/users/:id/two-factor/reset',
      access: 'admin',
      async handler({ params, principal, runtime }) {
        const account = params.id!;
        if (!runtime.current().accounts.has(account)) throw notFound(`No user with id '${account}'.`);
        const status = await service.resetTwoFactor(account);
        logger.info('two-factor reset by an admin', { account, by: principal.accountId, credential: principal.kind });
        return status;
      },
    },
  ]);
}
