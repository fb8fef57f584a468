/** Published test vectors (the project's design notes, RFC 6070, 389 DS and OpenDJ test suites). */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRegistry } from '../../../src/password/index.js';
import { encodeAdaptedBase64 } from '../../../schemes/encoding.js';
import { RFC_6070_SHA1 } from '../../helpers/pbkdf2-vectors.js';

const registry = createRegistry();

interface Vector {
  readonly password: string;
  readonly stored: string;
  readonly source: string;
}

const VECTORS: readonly Vector[] = [
  { password: 'secret', stored: '{SSHA}0H+zTv8o4MR4H43n03eCsvw1luG8LdB7', source: 'passlib, 4-byte salt' },
  { password: 'test', stored: '{SSHA}Pfx6Vf48AT9x3FVv8znbo8WQkEVSipHSWovxXmvNWUvp/d/7', source: 'passlib, 16-byte salt' },
  { password: 'test', stored: '{SMD5}LnuZPJhiaY95/4lmVFpg548xBsD4P4cw', source: 'passlib' },
  { password: 'helloworld', stored: '{SHA}at+xg6SiyUovktq1redipHiJpaE=', source: 'passlib' },
  { password: 'helloworld', stored: '{MD5}/F4DjTilcDIIVEHn/nAQsA==', source: 'passlib' },
  { password: 'secret', stored: '{SHA256}K7gNU3sdo+OL0wNhqoVWhr3g6s1xYv72ol/pe/Unols=', source: 'OpenLDAP pw-sha2 README' },
  {
    password: 'secret',
    stored: '{SHA512}vSsar3708Jvp9Szi2NWZZ02Bqp1qRCFpbcTZPdBhnWgs5WtNZKnvCXdhztmeD2cmW192CF5bDufKRpayrW/isg==',
    source: 'OpenLDAP pw-sha2 README',
  },
  {
    password: 'secret',
    stored: '{SSHA512}sA0uxvTZmjjgeqepQzW+3VNsblhqzltje58zvmzlAr0V6DwpiazN2VxnSFYthOpYDzqKXnv8rNmIQMOVX9alQgABAgMEBQYH',
    source: 'the design notes, salt 00..07',
  },
  { password: 'secret', stored: '{SSHA256}lAejl/Of0h/+J/b6px7T8LLPd/QxmtSbDDvk8djjRJEAAQIDBAUGBw==', source: 'the design notes, salt 00..07' },
  { password: 'secret', stored: '{PBKDF2}60000$Y6ZHtTTbeUgpIbIW0QDmDA$j/aU7jFKUSbH4UobNQDm9OEIwuw', source: 'OpenLDAP pw-pbkdf2 README' },
  { password: 'secret', stored: '{PBKDF2-SHA1}10000$QJTEclnXgh9Cz3ChCWpdAg$9.s98jwFJM.NXJK9ca/oJ5AyoAQ', source: 'slapd-pw-pbkdf2(5)' },
  {
    password: 'secret',
    stored: '{PBKDF2-SHA256}10000$jq40ImWtmpTE.aYDYV1GfQ$mpiL4ui02ACmYOAnCjp/MI1gQk50xLbZ54RZneU0fCg',
    source: 'slapd-pw-pbkdf2(5)',
  },
  {
    password: 'secret',
    stored: '{PBKDF2-SHA512}10000$/oQ4xZi382mk7kvCd3ZdkA$2wqjpuyV2l0U/a1QwoQPOtlQL.UcJGNACj1O24balruqQb/NgPW6OCvvrrJP8.SzA3/5iYvLnwWPzeX8IK/bEQ',
    source: 'slapd-pw-pbkdf2(5)',
  },
  {
    password: 'eicieY7ahchaoCh0eeTa',
    stored: '{PBKDF2-SHA256}36000$eElFb3p1WlZBb1lt$uW1b35DUKyhvQAf1mBqMvoBDcqSD06juzyO/nmyV0+w=',
    source: '389 DS pwdchan: 12-byte salt, padded standard base64',
  },
  {
    password: 'password',
    stored: '{PBKDF2-HMAC-SHA256}10000:xKsMmlzVLRYdYzcgBuD3ZIAeSj8tNhjDHGFDqhth8Kcbw5qjL5UZxaiS2awL1HjO',
    source: 'ForgeRock forgeops make-users.sh',
  },
  { password: 'password', stored: '{PBKDF2}10000:GVtxoj/iMc6eWKz9f1563cdlJVIAAQIDBAUGBw==', source: 'OpenDJ layout, salt 00..07' },
  {
    password: 'password',
    stored: '{PKCS5S2}DQIXJU038u4P7FdsuFTY/+35bm41kfjZa57UrdxHp2Mu3qF2uy+ooD+jF5t1tb8J',
    source: 'OpenDJ PKCS5S2PasswordStorageSchemeTestCase',
  },
  {
    password: 'admin',
    stored: '{PKCS5S2}siTdcDkChqeSDGVnIMILINUGSzhublIyp1KDvI0CJQ3HuQurEHyN7itWI6rpIzN4',
    source: 'OpenDJ PKCS5S2PasswordStorageSchemeTestCase',
  },
  { password: 'secret', stored: '{CLEARTEXT}secret', source: 'OpenLDAP cleartext' },
];

/** 389 DS test/plugins/pwdstorage/pbkdf2.c, password_a: {PBKDF2_SHA256}, 30000 iterations. */
const LEGACY_389 = 'AAB1MHPzX9ZP+HDQYp/+qxQwJAW5cXhRvXX1+w0NBMVX6FyMv2uzIvtBfvn6A3o84gKW9fBl5hGPeH87bQMZs977SvCV09P8MV/fkkjH7'
  + 'EoYNXoSQ6FFBpjm3orFplT9Y5PY14xRvJS4iicQ82uKaaARlkbn0uLaHBNS18uz1YFzuYUlf4lqh+uy1VzAR3YQW9FWKL9TYCsTRx75EGUMYj/f78'
  + '26CqrHNubnljh4s5gi31y+2qsdzdRerT1ISZC5z0kQbkXZYM7UCa4hlbSQl3mO6lpyxk44oiPkbKKii+bS+KRdIMeMgFawXo2L4+IYx+qXvJRwyi1M8v'
  + 'IxK+dnc2kOrLF9E7rZvs0hn9PuXMW3Itq46wPL3R51wo+0ki4gA36ZNF3PegbjFiAvrh24/D3SQMBjfk1YMDstNGJaMefd3bS1';

async function status(password: string, stored: string): Promise<string> {
  return (await registry.verify(Buffer.from(password, 'utf8'), stored)).status;
}

describe('published vectors verify', () => {
  for (const vector of VECTORS) {
    test(`${vector.stored.slice(0, vector.stored.indexOf('}') + 1)} ${vector.source}`, async () => {
      assert.equal(await status(vector.password, vector.stored), 'match');
      assert.equal(await status(`${vector.password}x`, vector.stored), 'mismatch');
    });
  }

  test('{PBKDF2_SHA256} 389 DS legacy blob (password_a, 30000 iterations)', async () => {
    assert.equal(await status('password', `{PBKDF2_SHA256}${LEGACY_389}`), 'match');
    assert.equal(await status('password_b', `{PBKDF2_SHA256}${LEGACY_389}`), 'mismatch');
  });

  test('{PBKDF2_SHA256} with altered rounds or salt does not match (389 test cases)', async () => {
    const rounds = `${LEGACY_389.slice(0, 4)}L${LEGACY_389.slice(5)}`;
    const salt = `${LEGACY_389.slice(0, 7)}0${LEGACY_389.slice(8)}`;
    assert.equal(await status('password', `{PBKDF2_SHA256}${rounds}`), 'mismatch');
    assert.equal(await status('password', `{PBKDF2_SHA256}${salt}`), 'mismatch');
  });

  test('{PBKDF2_SHA256} costs its iterations times its 8 blocks of key (256 bytes): 250,001 iterations is past --max-iterations 2,000,000', async () => {
    const blob = Buffer.from(LEGACY_389, 'base64');
    blob.writeUInt32BE(250_001, 0);
    const result = await registry.verify(Buffer.from('password'), `{PBKDF2_SHA256}${blob.toString('base64')}`);
    assert.equal(result.status, 'invalid');
    assert.match(result.status === 'invalid' ? result.reason : '', /--max-iterations/);
  });

  test('scheme names match case-insensitively, as OpenLDAP, 389 DS and OpenDJ do', async () => {
    assert.equal(await status('helloworld', '{sha}at+xg6SiyUovktq1redipHiJpaE='), 'match');
    assert.equal(await status('secret', '{pbkdf2-sha256}10000$jq40ImWtmpTE.aYDYV1GfQ$mpiL4ui02ACmYOAnCjp/MI1gQk50xLbZ54RZneU0fCg'), 'match');
  });

  test('a truncated 19-byte PBKDF2-SHA1 hash (389 pwdchan test) is refused, as OpenLDAP refuses it', async () => {
    const result = await registry.verify(Buffer.from('password'), '{PBKDF2-SHA1}10000$ZBEH6B07rgQpJSikyvMU2w$TAA03a5IYkz1QlPsbJKvUsTqNV');
    assert.equal(result.status, 'invalid');
  });

  test('a salted value under {SHA} verifies, as 389 DS accepts', async () => {
    const salted = '{SHA}0H+zTv8o4MR4H43n03eCsvw1luG8LdB7';
    assert.equal(await status('secret', salted), 'match');
  });
});

describe('RFC 6070 PBKDF2-HMAC-SHA1 vectors as {PBKDF2-SHA1} values (the KDF itself: pbkdf2-addon.test.ts)', () => {
  for (const v of RFC_6070_SHA1.filter((vector) => vector.dk.length === 40)) {
    test(`{PBKDF2-SHA1} built from the vector verifies: c=${v.c} P=${JSON.stringify(v.p)}`, async () => {
      const stored = `{PBKDF2-SHA1}${v.c}$${encodeAdaptedBase64(Buffer.from(v.s))}$${encodeAdaptedBase64(Buffer.from(v.dk, 'hex'))}`;
      assert.equal(await status(v.p, stored), 'match');
      const wrong = v.p.includes('\0') ? v.p.replace('\0', '') : `${v.p}x`;
      assert.equal(await status(wrong, stored), 'mismatch', 'a NUL is part of the password, not its end');
    });
  }
});
