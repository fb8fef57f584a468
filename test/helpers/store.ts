/** Temporary databases, small entries, searches, refusals and a consistency check of the raw keys, for store tests. */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { DirectoryError, DirectoryStore, type Entry, type IndexHint, type Scope } from '../../src/store/index.js';
import { decodeEntry } from '../../src/store/codec.js';
import { membershipRecords } from '../../src/store/groups.js';
import { indexKeys } from '../../src/store/indexes.js';

export async function tempDir(prefix = 'leveldap-store-'): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** The DNs (sorted) of the candidates the store gives for a search. */
export async function dns(store: DirectoryStore, base: string, scope: Scope, hint?: IndexHint): Promise<string[]> {
  const found: string[] = [];
  for await (const candidate of store.search(base, scope, hint)) found.push(candidate.dn);
  return found.sort();
}

/** The DNs (sorted) an equality term finds under dc=example,dc=com. */
export function equalDns(store: DirectoryStore, attribute: string, value: string): Promise<string[]> {
  return dns(store, 'dc=example,dc=com', 'sub', { equality: { attribute, value: Buffer.from(value) } });
}

/** Asserts that `promise` fails with a DirectoryError of this result code (and message, and matchedDN). */
export function rejectsWith(code: number, promise: Promise<unknown>, message?: RegExp, matchedDn?: string): Promise<void> {
  return assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof DirectoryError, `a DirectoryError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    if (matchedDn !== undefined) assert.equal(error.matchedDn, matchedDn);
    return true;
  });
}

/** An entry from 'name: value' pairs. */
export function entry(dn: string, pairs: Record<string, string | string[]>): Entry {
  const attributes = Object.entries(pairs).map(([name, value]) => ({
    name, values: (Array.isArray(value) ? value : [value]).map((text) => Buffer.from(text, 'utf8')),
  }));
  return { dn, attributes };
}

export const BASE = entry('dc=example,dc=com', { objectClass: ['top', 'domain'], dc: 'example' });
export const PEOPLE = entry('ou=People,dc=example,dc=com', { objectClass: ['top', 'organizationalUnit'], ou: 'People' });

export function person(n: number, extra: Record<string, string | string[]> = {}): Entry {
  return entry(`uid=user.${n},ou=People,dc=example,dc=com`, {
    objectClass: ['top', 'person', 'organizationalPerson', 'inetOrgPerson'],
    uid: `user.${n}`, cn: `User ${n}`, sn: `Number ${n % 10}`, mail: `user.${n}@example.com`, ...extra,
  });
}

/**
 * Reads every key of a closed database and checks that the index keys, the group membership
 * keys (with their values) and one-level keys are exactly those the stored entries call for:
 * nothing stale, nothing missing.
 */
export async function assertConsistent(path: string, indexed: ReadonlySet<string>): Promise<void> {
  const db = new Level<string, Buffer>(path, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
  const expectedIndex = new Set<string>();
  const entryKeys = new Set<string>();
  const indexFound = new Set<string>();
  const derivedExpected = new Map<string, string>();
  const derivedFound = new Map<string, string>();
  const children: [string, string][] = [];
  for await (const [key, value] of db.iterator()) {
    if (key.startsWith('e\0')) {
      entryKeys.add(key.slice(2));
      for (const indexKey of indexKeys(decodeEntry(value), key.slice(2), indexed)) expectedIndex.add(indexKey);
      for (const [derived, held] of membershipRecords(decodeEntry(value), key.slice(2))) derivedExpected.set(derived, held.toString());
    } else if (key.startsWith('i\0memberof\0') || key.startsWith('g\0') || key.startsWith('r\0')) {
      derivedFound.set(key, value.toString());
    } else if (key.startsWith('i\0')) {
      indexFound.add(key);
    } else if (key.startsWith('c\0')) {
      children.push([key, value.toString()]);
    }
  }
  await db.close();
  assert.deepEqual([...indexFound].sort(), [...expectedIndex].sort(), 'index keys are exactly those of the stored entries');
  assert.deepEqual([...derivedFound].sort(), [...derivedExpected].sort(), 'membership keys are exactly those of the stored groups');
  for (const [key, child] of children) assert.ok(entryKeys.has(child), `one-level key ${JSON.stringify(key)} names a stored entry`);
  const childTargets = new Set(children.map(([, child]) => child));
  for (const key of entryKeys) {
    if (key.includes('\x01dc=example\x01')) assert.ok(childTargets.has(key), `entry ${JSON.stringify(key)} is listed under its parent`);
  }
}

/** A store opened in `dir` holding BASE, PEOPLE and `users` person entries (user.0 ...). */
export async function peopleStore(dir: string, users: number): Promise<DirectoryStore> {
  const store = await DirectoryStore.open(dir);
  await store.add(BASE, { allowNewSuffix: true, actor: 'cn=admin' });
  await store.add(PEOPLE);
  for (let n = 0; n < users; n += 1) await store.add(person(n));
  return store;
}
