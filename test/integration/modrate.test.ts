/**
 * modrate against real servers: leveldap (always) and OpenLDAP slapd (when installed), both
 * loaded with `make-ldif --users 20`, bound as the admin. The counts are exact and the entries
 * really hold the new values afterwards (read back with ldapsearch): a -M value filled in from
 * the -g arguments, and values from generators of their own (`description:rand(0,1000)`,
 * `title:randstr(8)`), two changes in one request; OpenDJ's positional ATTRIBUTE:VALUE form; an
 * anonymous modrate fails every iteration; a -M that is not ATTRIBUTE:VALUE exits 89.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { run } from '../../src/harness/run.js';
import { findProgram, slapdAvailable, type Slapd } from '../../src/harness/slapd.js';
import { startSlapdWithUsers } from '../helpers/slapd.js';
import { repoRoot } from '../helpers/paths.js';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { ldapTool, parseLdifOutput, valuesOf } from '../helpers/ldap-client.js';
import { leveldapTarget, runJson, slapdTarget, type LoadSummary, type LoadTarget } from '../helpers/load-tools.js';

const modrate = join(repoRoot, 'bin', 'modrate.js');
const USERS = 20;
const PEOPLE = 'ou=People,dc=example,dc=com';
const skipTools = findProgram('ldapsearch') === undefined ? 'ldapsearch is missing: apt-get install ldap-utils' : false;


/** modrate --json as the admin over every user in turn (inc: each worker runs user.0 .. user.19). */
function modrateJson(target: LoadTarget, ...extra: string[]): Promise<LoadSummary> {
  return runJson(modrate, ['-h', '127.0.0.1', '-p', String(target.port), '-D', target.adminDn, '-w', target.adminPassword,
    '-b', `uid=user.%d,${PEOPLE}`, '-g', `inc(0,${USERS - 1})`, '--json', ...extra]);
}

/** Each user's values of these attributes, read with ldapsearch as the admin. */
async function valuesByUser(target: LoadTarget, ...attributes: string[]): Promise<Map<string, string[][]>> {
  const found = await ldapTool('ldapsearch', `ldap://127.0.0.1:${target.port}`, ['-LLL', '-b', PEOPLE, '-s', 'one', '(uid=user.*)', 'uid', ...attributes],
    { dn: target.adminDn, password: target.adminPassword });
  assert.equal(found.code, 0, found.stderr);
  const entries = parseLdifOutput(found.stdout);
  assert.equal(entries.length, USERS);
  return new Map(entries.map((entry) => [valuesOf(entry, 'uid')[0]!, attributes.map((name) => valuesOf(entry, name))]));
}

function suite(name: string, target: () => LoadTarget): void {
  describe(`modrate against ${name}`, () => {
    test('-c 2 -F -m 40: 40 modifies, no errors; every entry holds the value made from its -g argument', async () => {
      const marker = `modrate-${process.pid}-${name}`;
      const summary = await modrateJson(target(), '-c', '2', '-F', '-m', '40', '-M', `description:${marker}-%d`);
      assert.deepEqual([summary.operations, summary.errors], [40, 0], JSON.stringify(summary.errors_by_code));
      for (const [uid, [description]] of await valuesByUser(target(), 'description')) {
        assert.deepEqual(description, [`${marker}-${uid.slice('user.'.length)}`], uid);
      }
    });

    test('values from generators of their own, two changes in one request: description:rand(0,1000), title:randstr(8)', async () => {
      const summary = await modrateJson(target(), '-f', '-m', String(USERS), '-M', 'description:rand(0,1000)', '-M', 'title:randstr(8)');
      assert.deepEqual([summary.operations, summary.errors], [USERS, 0], JSON.stringify(summary.errors_by_code));
      for (const [uid, [description, title]] of await valuesByUser(target(), 'description', 'title')) {
        assert.equal(description!.length, 1, uid);
        assert.ok(/^\d+$/.test(description![0]!) && Number(description![0]) < 1000, `${uid}: ${description}`);
        assert.match(title![0]!, /^[A-Za-z0-9]{8}$/, uid);
      }
    });

    test('OpenDJ\'s positional ATTRIBUTE:VALUE form, without -f (a connection, and a bind, per modify)', async () => {
      const summary = await modrateJson(target(), '-m', String(USERS), `description:positional-{1}`);
      assert.deepEqual([summary.operations, summary.errors], [USERS, 0], JSON.stringify(summary.errors_by_code));
      const values = await valuesByUser(target(), 'description');
      assert.deepEqual(values.get('user.7'), [['positional-7']]);
    });
  });
}

describe('modrate', { skip: skipTools }, () => {
  let server: LeveldapServer;
  before(async () => {
    server = await startLeveldap({ users: USERS });
  });
  after(async () => {
    await server?.stop();
  });

  suite('leveldap', () => leveldapTarget(server));

  test('anonymous (no -D): every modify is refused, and the entries keep their values', async () => {
    const summary = await runJson(modrate, ['-p', String(server.port), '-b', `uid=user.%d,${PEOPLE}`, '-g', 'inc(0,4)',
      '-f', '-m', '5', '-M', 'description:anonymous', '--json']);
    assert.equal(summary.errors, 5, JSON.stringify(summary.errors_by_code));
    for (const [uid, [description]] of await valuesByUser(leveldapTarget(server), 'description')) assert.notDeepEqual(description, ['anonymous'], uid);
  });

  test('mistakes exit 89: no -b, no -M, a -M that is not ATTRIBUTE:VALUE (OpenDJ\'s -M 1000), a template beyond the -g given', async () => {
    const base = [modrate, '-p', String(server.port)];
    const cases: [string[], RegExp][] = [
      [[...base, '-M', 'description:x'], /-b DN/],
      [[...base, '-b', `uid=user.0,${PEOPLE}`], /no modification/],
      [[...base, '-b', `uid=user.0,${PEOPLE}`, '-M', '1000'], /ATTRIBUTE:VALUE .*--targetThroughput/],
      [[...base, '-b', `uid=user.0,${PEOPLE}`, '-M', 'description:%s'], /uses 1 argument/],
      [[...base, '-b', `uid=user.0,${PEOPLE}`, '-M', 'description:rand(9,1)'], /-M description: rand\(9,1\)/],
    ];
    for (const [argv, message] of cases) {
      const result = await run(process.execPath, argv);
      assert.equal(result.code, 89, result.stderr);
      assert.match(result.stderr, message);
    }
  });
});

describe('modrate against slapd', { skip: skipTools || (slapdAvailable() ? false : 'slapd is not installed') }, () => {
  let slapd: Slapd;
  before(async () => {
    slapd = await startSlapdWithUsers(USERS);
  });
  after(async () => {
    await slapd?.stop();
  });

  suite('slapd', () => slapdTarget(slapd));
});
