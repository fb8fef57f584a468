/** Temporary databases and small entries for store tests. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Entry } from '../../src/store/index.js';

export async function tempDir(prefix = 'leveldap-store-'): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
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
