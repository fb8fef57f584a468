/**
 * Filters built in code: `and(equality('objectClass', 'person'), substrings('cn', { initial: 'J' }))`.
 * Values may be strings (UTF-8) or octets. For defaults the server sends and for tests.
 */
import type { Filter } from '../../protocol/filter.js';

type Value = string | Buffer;

const octets = (value: Value): Buffer => (typeof value === 'string' ? Buffer.from(value, 'utf8') : value);

export const and = (...filters: Filter[]): Filter => ({ type: 'and', filters });
export const or = (...filters: Filter[]): Filter => ({ type: 'or', filters });
export const not = (filter: Filter): Filter => ({ type: 'not', filter });
export const equality = (attribute: string, value: Value): Filter => ({ type: 'equality', attribute, value: octets(value) });
export const approx = (attribute: string, value: Value): Filter => ({ type: 'approx', attribute, value: octets(value) });
export const greaterOrEqual = (attribute: string, value: Value): Filter => ({ type: 'greaterOrEqual', attribute, value: octets(value) });
export const lessOrEqual = (attribute: string, value: Value): Filter => ({ type: 'lessOrEqual', attribute, value: octets(value) });
export const present = (attribute: string): Filter => ({ type: 'present', attribute });

export function substrings(attribute: string, parts: { initial?: Value; any?: readonly Value[]; final?: Value }): Filter {
  return {
    type: 'substrings',
    attribute,
    ...(parts.initial === undefined ? {} : { initial: octets(parts.initial) }),
    any: (parts.any ?? []).map(octets),
    ...(parts.final === undefined ? {} : { final: octets(parts.final) }),
  };
}

export function extensible(value: Value, options: { attribute?: string; rule?: string; dnAttributes?: boolean }): Filter {
  return {
    type: 'extensible',
    value: octets(value),
    dnAttributes: options.dnAttributes ?? false,
    ...(options.attribute === undefined ? {} : { attribute: options.attribute }),
    ...(options.rule === undefined ? {} : { matchingRule: options.rule }),
  };
}
