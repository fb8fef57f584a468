/**
 * crypt(3) strings, hashed by the system's libxcrypt through native/xcrypt (whose yescrypt regions
 * are kept between hashes: native/xcrypt/region-pool.h), except SHA-crypt
 * (`$5$`, `$6$`), which native/sha-crypt hashes over the OpenSSL inside Node when it is built
 * (the same strings in 0.75x of libxcrypt's time for `$6$`, a third for `$5$`; libxcrypt when it
 * is not, for a setting it does not take, or with LEVELDAP_SHA_CRYPT=libxcrypt):
 *
 * - `{CRYPT}`, as OpenLDAP stores them: `$y$` yescrypt, `$6$`/`$5$` SHA-crypt (`rounds=`
 *   optional, 5,000 without), `$2b$`/`$2a$`/`$2y$` bcrypt, and for migration `$1$` MD5-crypt
 *   and traditional DES (13 characters). Written: yescrypt (libxcrypt's cost 5, 16 MiB, as
 *   /etc/shadow on current Debian, Fedora and Ubuntu), or SHA-512-crypt when `rounds` is given.
 * - 389 Directory Server's names for the same strings: `{CRYPT-YESCRYPT}`, `{CRYPT-SHA512}`,
 *   `{CRYPT-SHA256}` (each writes its method), `{CRYPT-MD5}` (verify only).
 * - `{BCRYPT}`, OpenDJ's and PingDS's spelling: `{BCRYPT}$2a$10$...`.
 *
 * Every name verifies every method above, as 389 does (crypt(3) reads the method from the
 * string). Other methods libxcrypt knows (scrypt `$7$`, gost-yescrypt, BSDi `_`, NetBSD
 * `$sha1$`, ...) are refused: their cost is not read here, so it could not be bounded.
 */
import type { PasswordScheme, SchemeParams, StoredCost } from './scheme.js';
import { InvalidStoredValue } from './scheme.js';
import { constantTimeEqual } from './encoding.js';
import { loadSchemeAddon } from './addon.js';

/** What native/xcrypt/region-pool.h did: whether libcrypt's mmap/munmap go through it, regions kept, hashes that reused one, regions mapped. */
export interface CryptRegions {
  readonly hooked: boolean;
  readonly kept: number;
  readonly reused: number;
  readonly mapped: number;
}

/** native/xcrypt/xcrypt.c */
interface XcryptAddon {
  crypt(phrase: Uint8Array, setting: string, callback: (error: Error | null, hash: string) => void): void;
  gensalt(prefix: string, count: number): string;
  regions(): CryptRegions;
}

/** native/sha-crypt/sha-crypt.c: throws a RangeError at once for a setting it does not take. */
interface ShaCryptAddon {
  crypt(phrase: Uint8Array, setting: string, callback: (error: Error | null, hash: string) => void): void;
}

const loaded = loadSchemeAddon<XcryptAddon>('xcrypt', 'xcrypt');
const shaCrypt = loadSchemeAddon<ShaCryptAddon>('sha-crypt', 'sha_crypt');
/** Why the SHA-crypt addon did not load, when it did not. */
export const shaCryptAddonError: string | undefined = shaCrypt.error;
const fastShaCrypt = process.env.LEVELDAP_SHA_CRYPT === 'libxcrypt' ? undefined : shaCrypt.addon;
const unavailable = loaded.error === undefined ? {} : { unavailable: `the crypt(3) addon (native/xcrypt) did not load: ${loaded.error}` };

/** The pool of yescrypt regions kept between hashes (native/xcrypt/region-pool.h), when the addon loaded. */
export function cryptRegions(): CryptRegions | undefined {
  return loaded.addon?.regions();
}

/** What hashes `$5$` and `$6$` strings (fixed when this module loads). */
export function shaCryptBackend(): 'sha-crypt addon' | 'libxcrypt' {
  return fastShaCrypt === undefined ? 'libxcrypt' : 'sha-crypt addon';
}

/** crypt(3)'s base64 alphabet. */
const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SHA_CRYPT_DEFAULT_ROUNDS = 5000;
/** libxcrypt refuses longer passwords (CRYPT_MAX_PASSPHRASE_SIZE, 512 with its NUL). */
const MAX_PASSWORD_BYTES = 511;

const SHA_CRYPT_PREFIX = /^\$[56]\$/;
const SHA_CRYPT = /^\$([56])\$(?:rounds=([0-9]{1,10})\$)?[^$]{0,16}\$[./0-9A-Za-z]+$/;
const BCRYPT = /^\$2[aby]\$([0-9]{2})\$[./0-9A-Za-z]{53}$/;
const YESCRYPT = /^\$y\$([./0-9A-Za-z]+)\$[./0-9A-Za-z]*\$[./0-9A-Za-z]+$/;
const MD5_CRYPT = /^\$1\$[^$]{0,8}\$[./0-9A-Za-z]{22}$/;
const DES = /^[./0-9A-Za-z]{13}$/;

/** One number of yescrypt's parameter string (its variable-length encoding, at least `min`); returns it and the characters read. */
function yescryptNumber(text: string, at: number, min: number): [number, number] {
  let c = ITOA64.indexOf(text[at] ?? '');
  if (c < 0) throw new InvalidStoredValue('the yescrypt parameters are not valid');
  let [start, end, chars, bits, value] = [0, 47, 1, 0, min];
  while (c > end) {
    value += (end + 1 - start) * 2 ** bits;
    start = end + 1;
    end = start + Math.floor((62 - end) / 2);
    chars += 1;
    bits += 6;
  }
  value += (c - start) * 2 ** bits;
  for (let i = 1; i < chars; i += 1) {
    c = ITOA64.indexOf(text[at + i] ?? '');
    if (c < 0) throw new InvalidStoredValue('the yescrypt parameters are not valid');
    bits -= 6;
    value += c * 2 ** bits;
  }
  return [value, chars];
}

/** yescrypt's memory (128·N·r bytes) and passes (t), from `$y$<flags><N_log2><r>[<have><p><t>...]$`. */
/** libxcrypt's yescrypt flavour number from which the lanes share the memory (yescrypt.h's YESCRYPT_RW). */
const YESCRYPT_RW = 2;

function yescryptCost(params: string): StoredCost {
  const numbers: number[] = [];
  for (let at = 0, index = 0; at < params.length; index += 1) {
    const [value, chars] = yescryptNumber(params, at, index === 0 ? 0 : 1);
    numbers.push(value);
    at += chars;
  }
  const [flavour = 0, logN, r, have = 0] = numbers;
  if (logN === undefined || r === undefined || logN > 40) throw new InvalidStoredValue('the yescrypt parameters are not valid');
  // Below YESCRYPT_RW each lane has the whole memory and they run one after another, so the time
  // grows with lanes x passes past what the limits mean (87 s within them); libxcrypt writes RW only.
  if (flavour < YESCRYPT_RW) throw new InvalidStoredValue('yescrypt\'s scrypt-compatible and WORM flavours are not served (libxcrypt writes the RW flavour, $y$j...)');
  const p = have & 1 ? (numbers[4] ?? 1) + 1 : 1;
  const t = have & 2 ? numbers[have & 1 ? 5 : 4] ?? 0 : 0;
  return { memoryKiB: (128 * r * 2 ** logN) / 1024, passes: t + 1, lanes: p };
}

/** The method of a crypt string and what it costs; InvalidStoredValue for a method not served here. */
export function cryptCost(value: string): StoredCost {
  const sha = SHA_CRYPT.exec(value);
  if (sha) return { iterations: Math.max(1000, Number(sha[2] ?? SHA_CRYPT_DEFAULT_ROUNDS)) };
  const bcrypt = BCRYPT.exec(value);
  if (bcrypt) return { bcryptCost: Number(bcrypt[1]) };
  const yescrypt = YESCRYPT.exec(value);
  if (yescrypt) return yescryptCost(yescrypt[1]!);
  if (MD5_CRYPT.test(value) || DES.test(value)) return {};
  throw new InvalidStoredValue('not a crypt(3) string served here: yescrypt $y$, SHA-crypt $6$/$5$, bcrypt $2b$/$2a$/$2y$, MD5-crypt $1$ or DES');
}

function addon(): XcryptAddon {
  if (loaded.addon === undefined) throw new Error(`the crypt(3) addon did not load: ${loaded.error}`);
  return loaded.addon;
}

/** crypt(3) of the password with a setting (a stored string or a new one), off the event loop. */
export function cryptAsync(password: Uint8Array, setting: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, hash: string) => (error ? reject(error) : resolve(hash));
    if (fastShaCrypt !== undefined && SHA_CRYPT_PREFIX.test(setting)) {
      try {
        fastShaCrypt.crypt(password, setting, done);
        return;
      } catch {
        // A setting (or password) it does not take: libxcrypt's answer, whatever it is.
      }
    }
    addon().crypt(password, setting, done);
  });
}

async function verifyCrypt(password: Uint8Array, value: string): Promise<boolean> {
  cryptCost(value);
  // crypt(3) reads a C string: a password with a NUL byte would be cut short there, so it matches
  // nothing; nor does one longer than libxcrypt hashes (no value can have been made from it).
  if (password.includes(0) || password.byteLength > MAX_PASSWORD_BYTES) return false;
  const hash = await cryptAsync(password, value);
  return constantTimeEqual(Buffer.from(hash), Buffer.from(value));
}

/** A method to write: libxcrypt's prefix and the count gensalt takes from the parameters. */
interface Method {
  readonly prefix: string;
  readonly count: (params: SchemeParams) => number;
}

const YESCRYPT_METHOD: Method = { prefix: '$y$', count: (params) => params.cost ?? 5 };
const SHA512_METHOD: Method = { prefix: '$6$', count: (params) => params.rounds ?? SHA_CRYPT_DEFAULT_ROUNDS };

function encoder(name: string, choose: (params: SchemeParams) => Method): (password: Uint8Array, params: SchemeParams) => Promise<string> {
  return async (password, params) => {
    if (password.includes(0)) throw new InvalidStoredValue('crypt(3) cannot hash a password with a NUL byte');
    if (password.byteLength > MAX_PASSWORD_BYTES) throw new InvalidStoredValue(`crypt(3) hashes passwords of at most ${MAX_PASSWORD_BYTES} bytes`);
    const method = choose(params);
    return `{${name}}${await cryptAsync(password, addon().gensalt(method.prefix, method.count(params)))}`;
  };
}

/** libxcrypt's yescrypt cost c writes N = 2^(c+7) and r = 32: 2^(c+9) KiB (5: 16 MiB). */
const YESCRYPT_COST = {
  name: 'cost', default: 5, min: 1, max: 11, description: "yescrypt cost (libxcrypt's: 5 is 16 MiB, each step doubles it)",
  cost: (cost: number) => ({ memoryKiB: 2 ** (cost + 9) }),
} as const;
const ROUNDS = (fallback: number, min: number) => ({
  name: 'rounds', default: fallback, min, max: 999_999_999, description: 'SHA-crypt rounds (rounds=; 5,000 when absent)',
  cost: (rounds: number) => ({ iterations: rounds }),
}) as const;
const BCRYPT_COST = { name: 'cost', default: 10, min: 4, max: 31, description: 'bcrypt cost (log2 of its rounds)', cost: (bcryptCost: number) => ({ bcryptCost }) } as const;

function cryptScheme(names: string[], description: string, write?: Pick<PasswordScheme, 'encode' | 'params'>): PasswordScheme {
  return { names, description, ...write, ...unavailable, verify: verifyCrypt, cost: cryptCost };
}

export const cryptSchemes: readonly PasswordScheme[] = [
  cryptScheme(['CRYPT'], 'crypt(3) as OpenLDAP stores it: writes yescrypt $y$ (SHA-512-crypt $6$ when rounds is not 0); verifies $y$ $6$ $5$ $2b$ $2a$ $2y$ $1$ and DES', {
    params: [YESCRYPT_COST, {
      ...ROUNDS(0, 0), description: 'write SHA-512-crypt with these rounds instead of yescrypt (0: yescrypt)',
      cost: (rounds: number) => (rounds === 0 ? {} : { iterations: rounds }),
    }],
    encode: encoder('CRYPT', (params) => ((params.rounds ?? 0) > 0 ? SHA512_METHOD : YESCRYPT_METHOD)),
  }),
  cryptScheme(['CRYPT-YESCRYPT'], "389 DS's name for a yescrypt crypt(3) string", { params: [YESCRYPT_COST], encode: encoder('CRYPT-YESCRYPT', () => YESCRYPT_METHOD) }),
  cryptScheme(['CRYPT-SHA512'], "389 DS's name for a SHA-512-crypt string ($6$)", {
    params: [ROUNDS(SHA_CRYPT_DEFAULT_ROUNDS, 1000)], encode: encoder('CRYPT-SHA512', () => SHA512_METHOD),
  }),
  cryptScheme(['CRYPT-SHA256'], "389 DS's name for a SHA-256-crypt string ($5$)", {
    params: [ROUNDS(SHA_CRYPT_DEFAULT_ROUNDS, 1000)],
    encode: encoder('CRYPT-SHA256', (params) => ({ prefix: '$5$', count: () => params.rounds ?? SHA_CRYPT_DEFAULT_ROUNDS })),
  }),
  cryptScheme(['CRYPT-MD5'], "389 DS's name for an MD5-crypt string ($1$); weak, verify only, for migration"),
  cryptScheme(['BCRYPT'], 'bcrypt as OpenDJ and PingDS store it: {BCRYPT}$2a$<cost>$<salt+hash>', {
    params: [BCRYPT_COST], encode: encoder('BCRYPT', () => ({ prefix: '$2a$', count: (params) => params.cost ?? BCRYPT_COST.default })),
  }),
];
