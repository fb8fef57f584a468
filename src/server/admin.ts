/**
 * The admin account (`--admin-dn`, default cn=Directory Manager): not an entry, a DN and a
 * password hash kept in the database's settings. Given a password (file or environment), the
 * server stores its hash (the default scheme at the policy's parameters, as every password
 * written); with none on a new database it generates one, which the caller prints once.
 */
import { randomBytes } from 'node:crypto';
import type { SchemeRegistry } from '../password/index.js';
import type { SchemeParams } from '../../schemes/scheme.js';
import type { DirectoryStore } from '../store/index.js';

const SETTING = 'adminPassword';

interface AdminPassword {
  /** The stored hash. */
  readonly stored: string;
  /** Set when the password was generated now: show it to the operator once. */
  readonly generated?: string;
}

export async function loadAdminPassword(
  store: DirectoryStore, registry: SchemeRegistry, scheme: string, given: Buffer | undefined, params: SchemeParams = {},
): Promise<AdminPassword> {
  if (given !== undefined) {
    const stored = await registry.encode(scheme, given, params);
    await store.putSetting(SETTING, stored);
    return { stored };
  }
  const existing = await store.getSetting(SETTING);
  if (existing !== undefined) return { stored: existing };
  const generated = randomBytes(18).toString('base64url');
  const stored = await registry.encode(scheme, Buffer.from(generated), params);
  await store.putSetting(SETTING, stored);
  return { stored, generated };
}
