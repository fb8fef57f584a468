/**
 * The implementations bench-primitives.ts compares for {ARGON2} and {CRYPT}/{BCRYPT}, each
 * wrapped to hash the same password and salt, and the checks that they agree before any is timed:
 *
 * - Argon2id: the libargon2 addon (native/argon2, Node-API over Debian's libargon2), @node-rs/argon2
 *   (Rust, napi-rs; what {ARGON2} hashes with since this measurement) and hash-wasm (WebAssembly,
 *   on the JavaScript thread).
 * - bcrypt: the libxcrypt addon (native/xcrypt), @node-rs/bcrypt (Rust, napi-rs), bcryptjs (pure
 *   JavaScript) and hash-wasm.
 *
 * argon2 (node-argon2) and bcrypt (Node-API, C++) were measured too, in commit a035bd8, and left
 * out since: both build native code at install (node-argon2's prebuilt binary crashed on this
 * Node, so npm built it from source), and neither was the fastest (docs/performance.md).
 * - SHA-512-crypt and SHA-256-crypt: the libxcrypt addon, the SHA-crypt addon (native/sha-crypt,
 *   over the OpenSSL inside Node; what {CRYPT} hashes `$5$`/`$6$` with since this measurement) and
 *   unixcrypt (JavaScript over node:crypto, synchronous). yescrypt: libxcrypt only (no npm package
 *   implements it).
 */
import { Algorithm, hash as rsArgon2Phc, hashRaw as rsArgon2Raw, verify as rsArgon2Verify } from '@node-rs/argon2';
import { hash as rsBcrypt } from '@node-rs/bcrypt';
import bcryptjs from 'bcryptjs';
import { argon2id as wasmArgon2id, argon2Verify as wasmArgon2Verify, bcrypt as wasmBcrypt } from 'hash-wasm';
import { encrypt as unixcrypt } from 'unixcrypt';
import { loadSchemeAddon } from '../schemes/addon.js';
import { constantTimeEqual } from '../schemes/encoding.js';
import { formatArgon2, libargon2Hash, parseArgon2 } from '../schemes/argon2.js';

export const PASSWORD = Buffer.from('correct horse battery staple');
const PASSWORD_TEXT = PASSWORD.toString('utf8');
export const SALT16 = Buffer.alloc(16, 7);
const ARGON2_LENGTH = 32;

export interface Argon2Cost {
  readonly label: string;
  readonly memoryKiB: number;
  readonly passes: number;
  readonly lanes: number;
}

/** OWASP's first choice (what {ARGON2} writes by default) and RFC 9106's second recommendation. */
export const ARGON2_COSTS: readonly Argon2Cost[] = [
  { label: 'argon2id m=19456,t=2,p=1', memoryKiB: 19_456, passes: 2, lanes: 1 },
  { label: 'argon2id m=65536,t=3,p=4', memoryKiB: 65_536, passes: 3, lanes: 4 },
];

export interface Argon2Candidate {
  readonly name: string;
  /** The raw 32-byte Argon2id hash of PASSWORD with SALT16. */
  raw(cost: Argon2Cost): Promise<Uint8Array>;
  /** The PHC string it writes for the same inputs. */
  phc(cost: Argon2Cost): Promise<string>;
  /** Its own verify of a PHC string against PASSWORD. */
  verify(phc: string): Promise<boolean>;
}

const addonSettings = (cost: Argon2Cost) => ({
  type: 'argon2id', version: 19, salt: SALT16, memoryKiB: cost.memoryKiB, passes: cost.passes, lanes: cost.lanes,
} as const);
const rsOptions = (cost: Argon2Cost) => ({
  algorithm: Algorithm.Argon2id, memoryCost: cost.memoryKiB, timeCost: cost.passes, parallelism: cost.lanes, outputLen: ARGON2_LENGTH, salt: SALT16,
});
const wasmOptions = (cost: Argon2Cost) => ({
  password: PASSWORD, salt: SALT16, memorySize: cost.memoryKiB, iterations: cost.passes, parallelism: cost.lanes, hashLength: ARGON2_LENGTH,
});

/** libargon2 through the addon, in libuv's thread pool ({ARGON2}'s fallback backend). */
const libargon2Addon: Argon2Candidate = {
  name: 'libargon2 addon (Node-API, C)',
  raw: (cost) => libargon2Hash(PASSWORD, addonSettings(cost), ARGON2_LENGTH),
  phc: async (cost) => formatArgon2({ ...addonSettings(cost), hash: await libargon2Hash(PASSWORD, addonSettings(cost), ARGON2_LENGTH) }),
  async verify(phc) {
    const parsed = parseArgon2(phc);
    return constantTimeEqual(await libargon2Hash(PASSWORD, parsed, parsed.hash.byteLength), parsed.hash);
  },
};

export const ARGON2_CANDIDATES: readonly Argon2Candidate[] = [
  libargon2Addon,
  {
    name: '@node-rs/argon2 (napi-rs, Rust)',
    raw: (cost) => rsArgon2Raw(PASSWORD, rsOptions(cost)),
    phc: (cost) => rsArgon2Phc(PASSWORD, rsOptions(cost)),
    verify: (phc) => rsArgon2Verify(phc, PASSWORD),
  },
  {
    name: 'hash-wasm (wasm)',
    raw: (cost) => wasmArgon2id({ ...wasmOptions(cost), outputType: 'binary' }),
    phc: (cost) => wasmArgon2id({ ...wasmOptions(cost), outputType: 'encoded' }),
    verify: (phc) => wasmArgon2Verify({ password: PASSWORD, hash: phc }),
  },
];

/** The parameter names of a PHC string in the order written, e.g. "m,t,p". */
function phcOrder(phc: string): string {
  const params = phc.split('$').find((part) => /^[a-z]+=[0-9]+(,[a-z]+=[0-9]+)+$/.test(part)) ?? '';
  return params.split(',').map((pair) => pair.split('=')[0]).join(',') || '(none)';
}

function readable(phc: string): boolean {
  try {
    parseArgon2(phc);
    return true;
  } catch {
    return false;
  }
}

const yes = (value: boolean): string => (value ? 'yes' : 'NO');

/**
 * One row per candidate: its raw hash equals the addon's (throws if not, so no mismatch is
 * timed), the order of its PHC parameters, whether {ARGON2} reads and verifies its PHC string,
 * and whether it verifies the addon's.
 */
export async function checkArgon2(cost: Argon2Cost): Promise<string[][]> {
  const expected = Buffer.from(await libargon2Addon.raw(cost));
  const addonPhc = await libargon2Addon.phc(cost);
  const rows: string[][] = [];
  for (const candidate of ARGON2_CANDIDATES) {
    const raw = Buffer.from(await candidate.raw(cost));
    if (!raw.equals(expected)) {
      throw new Error(`${cost.label}: ${candidate.name} hashed ${raw.toString('hex')}, the addon ${expected.toString('hex')}`);
    }
    const phc = await candidate.phc(cost);
    const addonVerifies = readable(phc) && await libargon2Addon.verify(phc);
    rows.push([cost.label, candidate.name, 'same', phcOrder(phc), yes(addonVerifies), yes(await candidate.verify(addonPhc))]);
  }
  return rows;
}

const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** bcrypt's base64 (its own alphabet, no padding): 16 salt bytes become 22 characters. */
function bcryptBase64(bytes: Uint8Array): string {
  let bits = 0;
  let count = 0;
  let text = '';
  for (const byte of bytes) {
    bits = (bits << 8) | byte;
    count += 8;
    while (count >= 6) {
      count -= 6;
      text += BCRYPT_ALPHABET[(bits >> count) & 63];
    }
  }
  return count > 0 ? text + BCRYPT_ALPHABET[(bits << (6 - count)) & 63] : text;
}

export const bcryptSetting = (cost: number): string => `$2b$${String(cost).padStart(2, '0')}$${bcryptBase64(SALT16)}`;

export interface CryptCandidate {
  readonly name: string;
  /** The crypt(3) string of PASSWORD for this setting (bcrypt: from bcryptSetting). */
  hash(setting: string): Promise<string> | string;
}

type CryptFunction = (phrase: Uint8Array, setting: string, callback: (error: Error | null, hash: string) => void) => void;

/** A crypt(3) addon of native/ as a candidate, called directly (schemes/crypt.ts would pick one). */
function addonCandidate(name: string, directory: string, target: string): CryptCandidate {
  const { addon, error } = loadSchemeAddon<{ crypt: CryptFunction }>(directory, target);
  return {
    name,
    hash: (setting) => new Promise((resolve, reject) => {
      if (addon === undefined) throw new Error(`native/${directory} did not load: ${error}`);
      addon.crypt(PASSWORD, setting, (failure, hash) => (failure ? reject(failure) : resolve(hash)));
    }),
  };
}

const libxcrypt = addonCandidate('libxcrypt addon (Node-API, C)', 'xcrypt', 'xcrypt');
const bcryptCost = (setting: string): number => Number(setting.slice(4, 6));

export const BCRYPT_CANDIDATES: readonly CryptCandidate[] = [
  libxcrypt,
  { name: '@node-rs/bcrypt (napi-rs, Rust)', hash: (setting) => rsBcrypt(PASSWORD, bcryptCost(setting), SALT16) },
  { name: 'bcryptjs (pure JS)', hash: (setting) => bcryptjs.hash(PASSWORD_TEXT, setting) },
  { name: 'hash-wasm (wasm)', hash: (setting) => wasmBcrypt({ password: PASSWORD, salt: SALT16, costFactor: bcryptCost(setting), outputType: 'encoded' }) },
];

export const SHA_CRYPT_CANDIDATES: readonly CryptCandidate[] = [
  libxcrypt,
  addonCandidate('SHA-crypt addon (OpenSSL in Node, C)', 'sha-crypt', 'sha_crypt'),
  { name: 'unixcrypt (JS on node:crypto, sync)', hash: (setting) => unixcrypt(PASSWORD_TEXT, setting) },
];

export const YESCRYPT_CANDIDATES: readonly CryptCandidate[] = [libxcrypt];

/** libxcrypt's gensalt (random salt), for the yescrypt and SHA-512-crypt settings. */
export function gensalt(prefix: string, count: number): string {
  const { addon, error } = loadSchemeAddon<{ gensalt(prefix: string, count: number): string }>('xcrypt', 'xcrypt');
  if (addon === undefined) throw new Error(`the crypt(3) addon did not load: ${error}`);
  return addon.gensalt(prefix, count);
}

/**
 * One row per candidate: its string equals libxcrypt's once the bcrypt variant is set aside
 * (throws if not); and the prefix it writes.
 */
export async function checkCrypt(label: string, setting: string, candidates: readonly CryptCandidate[]): Promise<string[][]> {
  const expected = await libxcrypt.hash(setting);
  const rows: string[][] = [];
  for (const candidate of candidates) {
    const written = await candidate.hash(setting);
    if (written.replace(/^\$2[abxy]\$/, '$2b$') !== expected) {
      throw new Error(`${label}: ${candidate.name} wrote ${written}, libxcrypt ${expected}`);
    }
    rows.push([label, candidate.name, 'same', written.slice(0, written.indexOf('$', 1) + 1)]);
  }
  return rows;
}
