/** Checks that an object loaded from a plugin really is a password storage scheme. */
import type { ParamSpec, PasswordScheme } from '../../schemes/scheme.js';
import { SchemeError } from './errors.js';
import { SCHEME_NAME } from './scheme-name.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function checkNames(names: unknown, origin: string): void {
  if (!Array.isArray(names) || names.length === 0) {
    throw new SchemeError(`${origin}: a scheme needs "names", a non-empty array of strings`);
  }
  for (const name of names) {
    if (typeof name !== 'string' || !SCHEME_NAME.test(name)) {
      throw new SchemeError(`${origin}: ${JSON.stringify(name)} is not a valid scheme name (letters, digits, . _ -)`);
    }
  }
}

function checkParam(param: unknown, origin: string): void {
  const fields = ['default', 'min', 'max'] as const;
  if (!isRecord(param) || typeof param.name !== 'string' || !fields.every((f) => Number.isInteger(param[f]))) {
    throw new SchemeError(`${origin}: each entry of "params" needs a name and integer default, min and max`);
  }
  const spec = param as unknown as ParamSpec;
  if (!(spec.min <= spec.default && spec.default <= spec.max)) {
    throw new SchemeError(`${origin}: parameter ${spec.name} has a default outside [min, max]`);
  }
}

function checkFunctions(candidate: Record<string, unknown>, origin: string): void {
  if (typeof candidate.verify !== 'function') throw new SchemeError(`${origin}: a scheme needs a verify(password, value) function`);
  for (const optional of ['encode', 'cost'] as const) {
    if (candidate[optional] !== undefined && typeof candidate[optional] !== 'function') {
      throw new SchemeError(`${origin}: "${optional}" must be a function when present`);
    }
  }
}

/** Returns the candidate as a scheme, or throws SchemeError saying what is missing. */
export function asScheme(candidate: unknown, origin: string): PasswordScheme {
  if (!isRecord(candidate)) throw new SchemeError(`${origin}: not a scheme object`);
  checkNames(candidate.names, origin);
  checkFunctions(candidate, origin);
  if (candidate.params !== undefined) {
    if (!Array.isArray(candidate.params)) throw new SchemeError(`${origin}: "params" must be an array`);
    candidate.params.forEach((param) => checkParam(param, origin));
  }
  const scheme = candidate as unknown as PasswordScheme;
  return {
    names: [...scheme.names],
    description: typeof scheme.description === 'string' ? scheme.description : '',
    params: scheme.params,
    verify: scheme.verify.bind(scheme),
    encode: scheme.encode?.bind(scheme),
    cost: scheme.cost?.bind(scheme),
    ...(typeof scheme.unavailable === 'string' && { unavailable: scheme.unavailable }),
  };
}
