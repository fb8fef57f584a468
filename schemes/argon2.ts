/**
 * {ARGON2}: the format of OpenLDAP 2.5's argon2 module, the PHC string
 *
 *   $argon2id$v=19$m=<memory KiB>,t=<passes>,p=<lanes>$<salt>$<hash>
 *
 * salt and hash in base64 without padding, the parameters in the order m, t, p (libargon2's
 * decoder, and so slapd, refuses any other order; some npm bindings write m, p, t). `v=` may be
 * absent: version 16, Argon2's first. Written: argon2id, v=19, a 16-byte salt and a 32-byte hash,
 * as slapd writes; argon2i and argon2d verify too.
 *
 * Hashed off the event loop by the fastest backend that loads (docs/performance.md, "Choosing
 * the Argon2 and crypt(3) implementations"): @node-rs/argon2 (RustCrypto's argon2 through
 * napi-rs, its binary shipped in the npm package), 2.5x faster here than Debian's libargon2, or
 * else libargon2, the reference implementation OpenLDAP links, through native/argon2. Both give
 * the same raw hash (tested). LEVELDAP_ARGON2=libargon2 forces the addon. This file parses and
 * writes the PHC string itself, so the parameter order is OpenLDAP's whatever the backend.
 */
import type { PasswordScheme, SchemeParams, StoredCost } from './scheme.js';
import { InvalidStoredValue } from './scheme.js';
import { constantTimeEqual, decodeBase64, randomSalt } from './encoding.js';
import { createRequire } from 'node:module';
import { loadSchemeAddon, type LoadedAddon } from './addon.js';

/** native/argon2/argon2.c; type 0 argon2d, 1 argon2i, 2 argon2id. */
interface Argon2Addon {
  hash(
    type: number, version: number, password: Uint8Array, salt: Uint8Array, passes: number, memoryKiB: number, lanes: number,
    length: number, callback: (error: Error | null, hash: Buffer) => void,
  ): void;
}

/** The part of @node-rs/argon2 used here (its enums as numbers: algorithm 0 d, 1 i, 2 id; version 0 is 16, 1 is 19). */
interface NodeRsArgon2 {
  hashRaw(password: Uint8Array, options: {
    algorithm: number; version: number; memoryCost: number; timeCost: number; parallelism: number; outputLen: number; salt: Uint8Array;
  }): Promise<Buffer>;
}

function loadNodeRs(): LoadedAddon<NodeRsArgon2> {
  try {
    return { addon: createRequire(import.meta.url)('@node-rs/argon2') as NodeRsArgon2 };
  } catch (error) {
    return { error: (error instanceof Error ? error.message : String(error)).split('\n')[0] };
  }
}

const libargon2 = loadSchemeAddon<Argon2Addon>('argon2', 'argon2');
const nodeRs = loadNodeRs();

export type Argon2Backend = '@node-rs/argon2' | 'libargon2';

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

type Argon2Settings = Omit<Argon2Value, 'hash'>;

/** The raw hash through libargon2; rejects when the addon did not load or libargon2 refuses the parameters. */
export function libargon2Hash(password: Uint8Array, value: Argon2Settings, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const { addon } = libargon2;
    if (addon === undefined) throw new Error(`the Argon2 addon did not load: ${libargon2.error}`);
    addon.hash(TYPES[value.type], value.version, password, value.salt, value.passes, value.memoryKiB, value.lanes, length,
      (error, hash) => (error ? reject(error) : resolve(hash)));
  });
}

/** The raw hash through @node-rs/argon2; rejects when it did not load or refuses the parameters. */
export async function nodeRsArgon2Hash(password: Uint8Array, value: Argon2Settings, length: number): Promise<Buffer> {
  if (nodeRs.addon === undefined) throw new Error(`@node-rs/argon2 did not load: ${nodeRs.error}`);
  return nodeRs.addon.hashRaw(password, {
    algorithm: TYPES[value.type], version: value.version === 19 ? 1 : 0, memoryCost: value.memoryKiB, timeCost: value.passes,
    parallelism: value.lanes, outputLen: length, salt: value.salt,
  });
}

function chooseBackend(): Argon2Backend | undefined {
  const wanted = process.env.LEVELDAP_ARGON2;
  if (nodeRs.addon !== undefined && wanted !== 'libargon2') return '@node-rs/argon2';
  return libargon2.addon !== undefined ? 'libargon2' : undefined;
}

const backend = chooseBackend();

/** The backend {ARGON2} hashes with (fixed when this module loads), or undefined when neither loaded. */
export function argon2Backend(): Argon2Backend | undefined {
  return backend;
}

/** Why each backend did not load, for the start-up log. */
export const argon2LoadErrors: Readonly<Record<Argon2Backend, string | undefined>> = { '@node-rs/argon2': nodeRs.error, libargon2: libargon2.error };

function unavailableReason(): string {
  const addon = `the Argon2 addon (native/argon2) did not load: ${libargon2.error}`;
  return nodeRs.addon === undefined ? `@node-rs/argon2 did not load (${nodeRs.error}), nor ${addon}` : `LEVELDAP_ARGON2=libargon2, but ${addon}`;
}

/** The raw Argon2 hash through the chosen backend. */
export function argon2Hash(password: Uint8Array, value: Argon2Settings, length: number): Promise<Buffer> {
  return backend === '@node-rs/argon2' ? nodeRsArgon2Hash(password, value, length) : libargon2Hash(password, value, length);
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
  ...(backend === undefined && { unavailable: unavailableReason() }),
  encode,
  verify,
  cost,
};
