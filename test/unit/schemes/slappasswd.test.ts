/** leveldap reads what OpenLDAP's slappasswd writes: committed fixtures, and fresh ones when it is installed. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRegistry } from '../../../src/password/index.js';
import { fixturePath } from '../../helpers/paths.js';
import { SLAPPASSWD, SLAPPASSWD_PASSWORDS, SLAPPASSWD_SCHEMES, slappasswd, type SlappasswdHash } from '../../helpers/slappasswd.js';

const registry = createRegistry();
const fixture = JSON.parse(readFileSync(fixturePath('slappasswd.json'), 'utf8')) as { hashes: SlappasswdHash[] };

async function assertVerifies(hash: SlappasswdHash): Promise<void> {
  const right = await registry.verify(Buffer.from(hash.password, 'utf8'), hash.stored);
  assert.equal(right.status, 'match', `${hash.stored} for ${JSON.stringify(hash.password.slice(0, 20))}`);
  const wrong = await registry.verify(Buffer.from(`${hash.password}.`, 'utf8'), hash.stored);
  assert.equal(wrong.status, 'mismatch', hash.stored);
}

describe('hashes written by slappasswd (committed fixtures)', () => {
  test('the fixture covers every scheme and password', () => {
    assert.equal(fixture.hashes.length, Object.keys(SLAPPASSWD_SCHEMES).length * SLAPPASSWD_PASSWORDS.length);
  });

  for (const hash of fixture.hashes) {
    test(`{${hash.scheme}} password of ${Buffer.byteLength(hash.password)} bytes`, () => assertVerifies(hash));
  }
});

describe('hashes written by slappasswd now', { skip: SLAPPASSWD ? false : 'slappasswd is not installed (apt-get install slapd slapd-contrib)' }, () => {
  for (const scheme of Object.keys(SLAPPASSWD_SCHEMES)) {
    test(`fresh {${scheme}} from slappasswd verifies`, async () => {
      for (const password of SLAPPASSWD_PASSWORDS) {
        const stored = await slappasswd(scheme, password);
        assert.ok(stored.startsWith(`{${scheme}}`) || scheme === 'CLEARTEXT', stored);
        await assertVerifies({ scheme, password, stored });
      }
    });
  }
});
