/** leveldap reads what OpenLDAP's slappasswd writes: committed fixtures, and fresh ones when it is installed. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRegistry } from '../../../src/password/index.js';
import { fixturePath } from '../../helpers/paths.js';
import {
  SLAPPASSWD, SLAPPASSWD_PASSWORDS, SLAPPASSWD_SCHEMES, passwordsFor, schemeOfLabel, slappasswd, truncatesAt, type SlappasswdHash,
} from '../../helpers/slappasswd.js';
import { skipUnavailable } from '../../helpers/native-schemes.js';

const registry = createRegistry();
const fixture = JSON.parse(readFileSync(fixturePath('slappasswd.json'), 'utf8')) as { hashes: SlappasswdHash[] };

/** The password verifies; one changed at its start does not, nor one longer by a byte (unless the method reads only a prefix that long). */
async function assertVerifies(hash: SlappasswdHash): Promise<void> {
  const right = await registry.verify(Buffer.from(hash.password, 'utf8'), hash.stored);
  assert.equal(right.status, 'match', `${hash.stored} for ${JSON.stringify(hash.password.slice(0, 20))}`);
  const changed = await registry.verify(Buffer.from(`.${hash.password.slice(1)}`, 'utf8'), hash.stored);
  assert.equal(changed.status, 'mismatch', hash.stored);
  const prefix = truncatesAt(hash.scheme);
  if (prefix !== undefined && Buffer.byteLength(hash.password) >= prefix) return;
  const longer = await registry.verify(Buffer.from(`${hash.password}.`, 'utf8'), hash.stored);
  assert.equal(longer.status, 'mismatch', hash.stored);
}

describe('hashes written by slappasswd (committed fixtures)', () => {
  test('the fixture covers every scheme and password', () => {
    assert.equal(fixture.hashes.length, Object.keys(SLAPPASSWD_SCHEMES).length * SLAPPASSWD_PASSWORDS.length);
  });

  for (const hash of fixture.hashes) {
    const skip = skipUnavailable(schemeOfLabel(hash.scheme));
    test(`${hash.scheme} password of ${Buffer.byteLength(hash.password)} bytes`, { skip }, () => assertVerifies(hash));
  }
});

describe('hashes written by slappasswd now', { skip: SLAPPASSWD ? false : 'slappasswd is not installed (apt-get install slapd slapd-contrib)' }, () => {
  for (const scheme of Object.keys(SLAPPASSWD_SCHEMES)) {
    test(`fresh ${scheme} from slappasswd verifies`, { skip: skipUnavailable(schemeOfLabel(scheme)) }, async () => {
      for (const password of passwordsFor(scheme)) {
        const stored = await slappasswd(scheme, password);
        assert.ok(stored.startsWith(`{${schemeOfLabel(scheme)}}`) || scheme === 'CLEARTEXT', stored);
        await assertVerifies({ scheme, password, stored });
      }
    });
  }
});
