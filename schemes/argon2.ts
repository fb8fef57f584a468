/**
 * {ARGON2}: the format of OpenLDAP 2.5's argon2 module, the PHC string
 *
 *   $argon2id$v=19$m=<memory KiB>,t=<passes>,p=<lanes>$<salt>$<hash>
 *
 * salt and hash in base64 without padding, the parameters in the order m, t, p (libargon2's
 * decoder, and so slapd, refuses any other order; some npm bindings write m, p, t). `v=` may be
 * absent: version 16, Argon2's first. Written: argon2id, v=19, a 16-byte salt and a 32-byte hash,
 * as slapd writes; argon2i and argon2d verify too. Hashed by libargon2, the reference
 * implementation OpenLDAP links, through native/argon2, in libuv's thread pool.
 */
import type { PasswordScheme, SchemeParams, StoredCost } from './scheme.js';
import { InvalidStoredValue } from './scheme.js';
import { constantTimeEqual, decodeBase64, randomSalt } from './encoding.js';
import { loadSchemeAddon } from './addon.js';

/** native/argon2/argon2.c; type 0 argon2d, 1 argon2i, 2 argon2id. */
interface Argon2Addon {
  hash(
    type: number, version: number, password: Uint8Array, salt: Uint8Array, passes: number, memoryKiB: number, lanes: number,
    length: number, callback: (error: Error | null, hash: Buffer) => void,
  ): void;
}

const loaded = loadSchemeAddon<Argon2Addon>('argon2', 'argon2');

const TYPES = { argon2d: 0, argon2i: 1, argon2id: 2 } as const;
type Argon2Type = keyof typeof TYPES;

const SALT_LENGTH = 16;
const HASH_LENGTH = 32;
/** libargon2's bounds: a salt of at least 8 bytes, a hash of 4 or more. */
const MIN_SALT = 8;
const MIN_HASH = 4;
const MAX_HASH = 1024;

/** OWASP's first choice (Password Storage Cheat Sheet): argon2id, 19 MiB, 2 passes, 1 lane. */
const PARAMS = [
  { name: 'memory', default: 19_456, min: 8, max: 4_194_304, description: 'Argon2 memory in KiB (m)', cost: (memoryKiB: number) => ({ memoryKiB }) },
  { name: 'time', default: 2, min: 1, max: 1_000, description: 'Argon2 passes over the memory (t)', cost: (passes: number) => ({ passes }) },
  { name: 'parallelism', default: 1, min: 1, max: 16, description: 'Argon2 lanes, each hashed on a thread of its own (p)', cost: (lanes: number) => ({ lanes }) },
] as const;

export interface Argon2Value {
  readonly type: Argon2Type;
  readonly version: 16 | 19;
  readonly memoryKiB: number;
  readonly passes: number;
  readonly lanes: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

const PHC = /^\$(argon2id|argon2i|argon2d)(?:\$v=([0-9]+))?\$m=([0-9]{1,10}),t=([0-9]{1,10}),p=([0-9]{1,8})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function unpadded(text: string, what: string, min: number): Buffer {
  if (text.length % 4 === 1) throw new InvalidStoredValue(`${what} is not valid base64`);
  const bytes = decodeBase64(text, what);
  if (bytes.byteLength < min || bytes.byteLength > MAX_HASH) {
    throw new InvalidStoredValue(`${what} is ${bytes.byteLength} bytes; Argon2 takes ${min} to ${MAX_HASH}`);
  }
  return bytes;
}

export function parseArgon2(value: string): Argon2Value {
  const match = PHC.exec(value);
  if (!match) throw new InvalidStoredValue('expected $argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash> (parameters in the order m, t, p)');
  const [, type, version = '16', m, t, p, salt, hash] = match as unknown as [string, Argon2Type, string | undefined, string, string, string, string, string];
  if (version !== '16' && version !== '19') throw new InvalidStoredValue(`Argon2 version ${version} is unknown (16 or 19)`);
  const [memoryKiB, passes, lanes] = [Number(m), Number(t), Number(p)];
  if (passes < 1 || lanes < 1 || memoryKiB < 8 * lanes) {
    throw new InvalidStoredValue(`m=${m},t=${t},p=${p}: Argon2 needs t and p of at least 1 and m of at least 8 KiB per lane`);
  }
  return {
    type, version: version === '19' ? 19 : 16, memoryKiB, passes, lanes,
    salt: unpadded(salt, 'the salt', MIN_SALT), hash: unpadded(hash, 'the hash', MIN_HASH),
  };
}

const toText = (bytes: Buffer): string => bytes.toString('base64').replace(/=+$/, '');

export function formatArgon2(value: Argon2Value): string {
  const { type, version, memoryKiB, passes, lanes, salt, hash } = value;
  return `$${type}$v=${version}$m=${memoryKiB},t=${passes},p=${lanes}$${toText(salt)}$${toText(hash)}`;
}

/** The raw Argon2 hash; rejects when the addon did not load or libargon2 refuses the parameters. */
export function argon2Hash(password: Uint8Array, value: Omit<Argon2Value, 'hash'>, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const { addon } = loaded;
    if (addon === undefined) throw new Error(`the Argon2 addon did not load: ${loaded.error}`);
    addon.hash(TYPES[value.type], value.version, password, value.salt, value.passes, value.memoryKiB, value.lanes, length,
      (error, hash) => (error ? reject(error) : resolve(hash)));
  });
}

async function encode(password: Uint8Array, params: SchemeParams): Promise<string> {
  const settings = {
    type: 'argon2id', version: 19, salt: randomSalt(SALT_LENGTH),
    memoryKiB: params.memory ?? PARAMS[0].default, passes: params.time ?? PARAMS[1].default, lanes: params.parallelism ?? PARAMS[2].default,
  } as const;
  return `{ARGON2}${formatArgon2({ ...settings, hash: await argon2Hash(password, settings, HASH_LENGTH) })}`;
}

async function verify(password: Uint8Array, value: string): Promise<boolean> {
  const parsed = parseArgon2(value);
  return constantTimeEqual(await argon2Hash(password, parsed, parsed.hash.byteLength), parsed.hash);
}

function cost(value: string): StoredCost {
  const { memoryKiB, passes, lanes } = parseArgon2(value);
  return { memoryKiB, passes, lanes };
}

export const argon2Scheme: PasswordScheme = {
  names: ['ARGON2'],
  description: 'Argon2 (RFC 9106) as OpenLDAP 2.5 stores it: $argon2id$v=19$m=,t=,p=$salt$hash; verifies argon2i and argon2d',
  params: PARAMS,
  ...(loaded.error !== undefined && { unavailable: `the Argon2 addon (native/argon2) did not load: ${loaded.error}` }),
  encode,
  verify,
  cost,
};
