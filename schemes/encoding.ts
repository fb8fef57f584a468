/** Byte codecs and comparisons shared by the schemes. Pure functions, no I/O. */
import { randomFillSync, timingSafeEqual, createHash } from 'node:crypto';
import { InvalidStoredValue } from './scheme.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const ADAPTED_BASE64 = /^[A-Za-z0-9+/.]*={0,2}$/;

/** Standard base64 (RFC 4648), padding optional, anything else refused. */
export function decodeBase64(text: string, what: string): Buffer {
  const trimmed = text.replace(/\r?\n$/, '');
  if (!BASE64.test(trimmed) || trimmed.length % 4 === 1) {
    throw new InvalidStoredValue(`${what} is not valid base64`);
  }
  return Buffer.from(trimmed, 'base64');
}

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * passlib's "adapted base64" as OpenLDAP pw-pbkdf2 writes it: `+` becomes `.`, no padding.
 * Decoding also takes `+` and padding, as 389 Directory Server writes standard base64.
 */
export function encodeAdaptedBase64(bytes: Uint8Array): string {
  return encodeBase64(bytes).replace(/=+$/, '').replaceAll('+', '.');
}

export function decodeAdaptedBase64(text: string, what: string): Buffer {
  if (!ADAPTED_BASE64.test(text) || text.replace(/=+$/, '').length % 4 === 1) {
    throw new InvalidStoredValue(`${what} is not valid base64`);
  }
  return Buffer.from(text.replaceAll('.', '+'), 'base64');
}

/** Equal length and equal bytes, in time that depends only on the length. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.byteLength > 0 && timingSafeEqual(a, b);
}

/** Compare secrets of any length without leaking where they differ or how long they are. */
export function constantTimeEqualAnyLength(a: Uint8Array, b: Uint8Array): boolean {
  const digestA = createHash('sha256').update(a).digest();
  const digestB = createHash('sha256').update(b).digest();
  return timingSafeEqual(digestA, digestB) && a.byteLength === b.byteLength;
}

/**
 * Salts come from a pool of CSPRNG bytes refilled 4 KiB at a time (as Node's randomUUID does):
 * one randomBytes() call per salt costs more than the SHA-2 hash it salts.
 */
const SALT_POOL = Buffer.alloc(4096);
let poolOffset = SALT_POOL.byteLength;

export function randomSalt(length: number): Buffer {
  if (length > SALT_POOL.byteLength) return randomFillSync(Buffer.alloc(length));
  if (poolOffset + length > SALT_POOL.byteLength) {
    randomFillSync(SALT_POOL);
    poolOffset = 0;
  }
  const salt = Buffer.from(SALT_POOL.subarray(poolOffset, poolOffset + length));
  poolOffset += length;
  return salt;
}

/** A positive decimal integer as it appears in a stored value; refuses signs, spaces, overflow. */
export function parseCount(text: string, what: string): number {
  if (!/^[0-9]{1,10}$/.test(text)) throw new InvalidStoredValue(`${what} "${text.slice(0, 12)}" is not a number`);
  const value = Number(text);
  if (value < 1) throw new InvalidStoredValue(`${what} must be at least 1`);
  return value;
}
