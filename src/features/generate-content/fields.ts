/**
 * Field checks of the generateContent ingress: a field it cannot carry to every upstream is
 * refused by name (400), never dropped, so the client never gets a silently different answer.
 */
import { unsupportedParameter } from '../../kernel/errors.ts';

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** 400 naming the first field of `object` outside `known` (`where` is its path). */
export function refuseUnknown(object: Record<string, unknown>, known: ReadonlySet<string>, where: string): void {
  for (const key of Object.keys(object)) {
    if (known.has(key)) continue;
    const param = where ? `${where}.${key}` : key;
    throw unsupportedParameter(`The field '${param}' is not supported by this gateway's generateContent interface.`, param);
  }
}
