/**
 * `leveldap make-ldif`, `import-ldif` and `export-ldif` as a user runs them: round trips,
 * password handling on import, errors that name their line (stopping, or skipping with
 * --continue-on-error), standard input, change records, a database in use, subtree export.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseLdif, type LdifRecord } from '../../src/ldif/index.js';
import { fixturePath, leveldapBin, repoRoot } from '../helpers/paths.js';
import { collect, run, type RunResult } from '../../src/harness/run.js';
import { tempDir } from '../helpers/store.js';
import { startLeveldap } from '../helpers/leveldap-server.js';
import { logRecords, type LogRecord } from '../helpers/server-log.js';
import { mountTmpfs, tmpfsUnavailable } from '../helpers/tmpfs.js';

const leveldap = (args: string[], input?: string): Promise<RunResult> => run(process.execPath, [leveldapBin, ...args], input);

const BASE_DN = 'dc=example,dc=com';
const PEOPLE_DN = `ou=People,${BASE_DN}`;
const COUNT_LINE = /^imported (\d+) entries(?:, (\d+) skipped)? in [\d.]+ s \(\d+ entries\/s\)\n(?:compacted the database in [\d.]+ s\n|written in key order: nothing to compact\n)?$/;

/** Runs the body with a fresh temporary directory, removed afterwards whatever happens. */
async function inTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const temp = await tempDir('leveldap-import-');
  try {
    await body(temp.path);
  } finally {
    await temp.remove();
  }
}

const UNFINISHED = 'the last import-ldif into this database did not finish: it holds what was written before it stopped';

/** Starts serve on DIR/db (with more `args`) until it listens, and stops it; its log records. */
async function serveOnce(dir: string, args: string[] = []): Promise<LogRecord[]> {
  await writeFile(join(dir, 'admin-password'), 'secret-admin');
  const server = await startLeveldap({ dir, args });
  try {
    return logRecords(server);
  } finally {
    await server.stop();
  }
}

async function makeLdif(...args: string[]): Promise<string> {
  const result = await leveldap(['make-ldif', ...args]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

/** Writes the LDIF to a file in `dir` and imports it into the database `dir/db` (or `db`). */
async function importLdif(dir: string, ldif: string, args: string[] = [], db = join(dir, 'db')): Promise<RunResult> {
  const file = join(dir, `input-${Math.random().toString(36).slice(2)}.ldif`);
  await writeFile(file, ldif);
  return leveldap(['import-ldif', file, '--data', db, ...args]);
}

async function exportLdif(db: string, ...args: string[]): Promise<string> {
  const result = await leveldap(['export-ldif', '--data', db, ...args]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

/** The count line's numbers: imported and skipped. */
function counts(result: RunResult): { imported: number; skipped: number } {
  const match = COUNT_LINE.exec(result.stdout);
  assert.ok(match, `count line expected on stdout, got ${JSON.stringify(result.stdout)}; stderr: ${result.stderr}`);
  return { imported: Number(match[1]), skipped: Number(match[2] ?? 0) };
}

async function exportedDns(db: string, ...args: string[]): Promise<string[]> {
  return (await parseLdif(await exportLdif(db, ...args))).map((record) => record.dn);
}

/** The values of an attribute in a content record, as text. */
function textValues(record: LdifRecord | undefined, attribute: string): string[] {
  assert.ok(record && (record.kind === 'entry' || record.kind === 'add'), 'a content record');
  return record.attributes.filter((value) => value.name.toLowerCase() === attribute.toLowerCase()).map((value) => value.value.toString('utf8'));
}

function recordOf(records: readonly LdifRecord[], dn: string): LdifRecord | undefined {
  return records.find((record) => record.dn === dn);
}

/** 1-based number of the last line of `text` that equals `line` (bad records come after the good ones). */
function lineOf(text: string, line: string): number {
  const index = text.split('\n').lastIndexOf(line);
  assert.notEqual(index, -1, `no line ${JSON.stringify(line)}`);
  return index + 1;
}

/** `encode-password --verify`'s exit status: 0 match, 1 mismatch, 2 error. */
async function verifyPassword(stored: string, password: string): Promise<number> {
  return (await leveldap(['encode-password', '--verify', stored, password])).code;
}

/** An account entry under ou=People, as LDIF lines. */
function account(uid: string): string {
  return `dn: uid=${uid},${PEOPLE_DN}\nobjectClass: top\nobjectClass: account\nuid: ${uid}\n`;
}

/** Records joined by blank lines. */
const ldifOf = (...records: string[]): string => records.map((record) => record.replace(/\n*$/, '\n')).join('\n');

describe('import-ldif and export-ldif: round trip', () => {
  test('make-ldif -> import -> export -> import -> export: identical exports, 302 entries, operational attributes, hashed passwords', async () => {
    await inTempDir(async (dir) => {
      const generated = await makeLdif('--users', '300', '--seed', 's1');
      const first = await importLdif(dir, generated, [], join(dir, 'db1'));
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /^imported 302 entries in /);
      assert.match(first.stdout, /^compacted the database in \d+\.\d s$/m);
      assert.deepEqual(counts(first), { imported: 302, skipped: 0 });

      const exported = await exportLdif(join(dir, 'db1'));
      assert.equal(exported.match(/^dn: /gm)?.length, 302);
      assert.equal(exported.match(/^entryUUID: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/gm)?.length, 302);
      assert.equal(exported.match(/^createTimestamp: \d{14}Z$/gm)?.length, 302);
      assert.equal(exported.match(/^userPassword:: /gm)?.length, 300);
      assert.doesNotMatch(exported, /^userPassword: /m, 'userPassword is always base64');

      const records = await parseLdif(exported);
      assert.equal(new Set(records.map((record) => record.dn.toLowerCase())).size, 302);
      const [stored] = textValues(recordOf(records, `uid=user.0,${PEOPLE_DN}`), 'userPassword');
      assert.ok(stored?.startsWith('{PBKDF2-SHA256}10000$'), `default scheme, got ${stored}`);
      assert.equal(await verifyPassword(stored!, 'password'), 0);
      assert.equal(await verifyPassword(stored!, 'passwore'), 1);

      const second = await importLdif(dir, exported, ['--no-compact'], join(dir, 'db2'));
      assert.equal(second.code, 0, second.stderr);
      assert.doesNotMatch(second.stdout, /compacted/, '--no-compact leaves the database as loaded');
      assert.deepEqual(counts(second), { imported: 302, skipped: 0 });
      const reexported = await exportLdif(join(dir, 'db2'));
      assert.ok(reexported === exported, 'the export of the re-imported export is byte-identical');
    });
  });

  test('--sort (a load through sorted runs) stores what a load as it comes stores: users, groups, memberships', async () => {
    await inTempDir(async (dir) => {
      const generated = await makeLdif('--users', '300', '--groups', '12', '--scheme', 'SSHA512', '--seed', 's2');
      assert.equal((await importLdif(dir, generated, ['--no-sort'], join(dir, 'db1'))).code, 0);
      const exported = await exportLdif(join(dir, 'db1'));
      const sorted = await importLdif(dir, exported, ['--sort'], join(dir, 'db2'));
      assert.equal(sorted.code, 0, sorted.stderr);
      assert.match(sorted.stdout, /^written in key order: nothing to compact$/m);
      assert.deepEqual(counts(sorted), { imported: 315, skipped: 0 });
      assert.ok((await exportLdif(join(dir, 'db2'))) === exported, 'the same export, byte for byte');
      const members = await exportedDns(join(dir, 'db2'), '--base-dn', `ou=Groups,${BASE_DN}`);
      assert.equal(members.length, 13);
    });
  });
});

describe('make-ldif', () => {
  test('usage errors exit 2 with one line, whichever check of the option parser finds them', async () => {
    for (const args of [['make-ldif', '--users', 'abc'], ['make-ldif', '--users', '-3'], ['export-ldif', '--data'], ['make-ldif', '--bogus'], ['make-ldif']]) {
      const result = await leveldap(args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack');
    }
  });

  test('is deterministic for a seed: same seed same output, another seed another output', async () => {
    const [a, b, c] = await Promise.all([
      makeLdif('--users', '20', '--seed', 's1'), makeLdif('--users', '20', '--seed', 's1'), makeLdif('--users', '20', '--seed', 's2'),
    ]);
    assert.ok(a === b, 'same seed, byte-identical output');
    assert.notEqual(a, c);
  });

  test('writes the base, ou=People and uid=user.0..N-1 with userPassword: password in clear by default', async () => {
    const ldif = await makeLdif('--users', '5');
    const records = await parseLdif(ldif);
    const users = [0, 1, 2, 3, 4].map((n) => `uid=user.${n},${PEOPLE_DN}`);
    assert.deepEqual(records.map((record) => record.dn), [BASE_DN, PEOPLE_DN, ...users]);
    assert.equal(ldif.match(/^userPassword: password$/gm)?.length, 5);
    for (const dn of users) {
      assert.ok(textValues(recordOf(records, dn), 'objectClass').includes('inetOrgPerson'), dn);
      assert.deepEqual(textValues(recordOf(records, dn), 'userPassword'), ['password']);
    }
    assert.deepEqual(textValues(records[0], 'objectClass'), ['top', 'domain']);
  });

  test('--groups N: ou=Groups and N groupOfNames after the same users; each user in 1-4 groups, sizes falling off, some nested; deterministic; imports', async () => {
    const [plain, grouped, again] = await Promise.all([
      makeLdif('--users', '300', '--seed', 'g'), makeLdif('--users', '300', '--groups', '40', '--seed', 'g'), makeLdif('--users', '300', '--groups', '40', '--seed', 'g'),
    ]);
    assert.ok(grouped === again, 'same seed, byte-identical output');
    assert.ok(grouped.startsWith(plain), 'the users are the same with groups');
    const records = await parseLdif(grouped);
    const groups = records.filter((record) => record.dn.endsWith(`,ou=Groups,${BASE_DN}`));
    assert.equal(groups.length, 40);
    assert.equal(records.find((record) => record.dn === `ou=Groups,${BASE_DN}`)?.kind, 'entry');
    const sizes = groups.map((group) => textValues(group, 'member').length);
    assert.ok(sizes.every((size) => size > 0), 'every group has a member');
    assert.ok(sizes[0]! > 3 * sizes.at(-1)!, `group.0 is much larger than group.39 (${sizes[0]}, ${sizes.at(-1)})`);
    const joined = new Map<string, number>();
    for (const group of groups) for (const member of textValues(group, 'member')) joined.set(member, (joined.get(member) ?? 0) + 1);
    const users = [...joined].filter(([dn]) => dn.startsWith('uid='));
    assert.equal(users.length, 300, 'every user is in a group');
    assert.ok(users.every(([, count]) => count >= 1 && count <= 4));
    assert.ok([...joined.keys()].some((dn) => dn.startsWith('cn=group.')), 'some groups are nested');
    assert.ok(textValues(groups[0], 'objectClass').includes('groupOfNames'));
    await inTempDir(async (dir) => {
      const result = await importLdif(dir, grouped);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(counts(result), { imported: 343, skipped: 0 });
    });
    const refused = await leveldap(['make-ldif', '--users', '0', '--groups', '1']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /--groups needs at least one user/);
  });

  test('--scheme SSHA512 writes {SSHA512} values that verify (with --password too)', async () => {
    const ldif = await makeLdif('--users', '2', '--scheme', 'SSHA512', '--password', 's3cret-ü');
    const records = await parseLdif(ldif);
    const stored = records.flatMap((record) => (record.kind === 'entry' ? textValues(record, 'userPassword') : []));
    assert.equal(stored.length, 2);
    for (const value of stored) {
      assert.match(value, /^\{SSHA512\}[A-Za-z0-9+/]+=*$/);
      assert.equal(await verifyPassword(value, 's3cret-ü'), 0);
      assert.equal(await verifyPassword(value, 'password'), 1);
    }
  });

  test('--base-dn o=Acme makes an organization base entry, and the output imports', async () => {
    const ldif = await makeLdif('--users', '2', '--base-dn', 'o=Acme');
    const records = await parseLdif(ldif);
    assert.deepEqual(records.map((record) => record.dn), ['o=Acme', 'ou=People,o=Acme', 'uid=user.0,ou=People,o=Acme', 'uid=user.1,ou=People,o=Acme']);
    assert.deepEqual(textValues(records[0], 'objectClass'), ['top', 'organization']);
    assert.deepEqual(textValues(records[0], 'o'), ['Acme']);
    await inTempDir(async (dir) => {
      const result = await importLdif(dir, ldif);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(counts(result), { imported: 4, skipped: 0 });
      assert.deepEqual(await exportedDns(join(dir, 'db')), records.map((record) => record.dn));
    });
  });
});

describe('import-ldif: userPassword', () => {
  interface FixtureHash { scheme: string; password: string; stored: string }

  async function slappasswdFixture(scheme: string): Promise<FixtureHash> {
    const { hashes } = JSON.parse(await readFile(fixturePath('slappasswd.json'), 'utf8')) as { hashes: FixtureHash[] };
    const hash = hashes.find((candidate) => candidate.scheme === scheme && candidate.password !== 'secret' && candidate.password.length < 100);
    assert.ok(hash, `a ${scheme} hash in slappasswd.json`);
    return hash;
  }

  test('--scheme SSHA hashes plain values as {SSHA}; a slappasswd {SSHA512} value is kept byte for byte', async () => {
    const ssha512 = await slappasswdFixture('SSHA512');
    const ldif = ldifOf(
      await makeLdif('--users', '0'),
      `${account('plain')}objectClass: simpleSecurityObject\nuserPassword: plain-secret\n`,
      `${account('hashed')}objectClass: simpleSecurityObject\nuserPassword: ${ssha512.stored}\n`,
    );
    await inTempDir(async (dir) => {
      const result = await importLdif(dir, ldif, ['--scheme', 'SSHA']);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(counts(result), { imported: 4, skipped: 0 });
      const records = await parseLdif(await exportLdif(join(dir, 'db')));
      const [plain] = textValues(recordOf(records, `uid=plain,${PEOPLE_DN}`), 'userPassword');
      assert.match(plain ?? '', /^\{SSHA\}[A-Za-z0-9+/]+=*$/);
      assert.equal(await verifyPassword(plain!, 'plain-secret'), 0);
      assert.equal(await verifyPassword(plain!, 'plain-secreT'), 1);
      assert.deepEqual(textValues(recordOf(records, `uid=hashed,${PEOPLE_DN}`), 'userPassword'), [ssha512.stored]);
      assert.equal(await verifyPassword(ssha512.stored, ssha512.password), 0);
    });
  });

  test('a value in an unknown scheme {FOO} is an error naming its line (exit 1)', async () => {
    const ldif = ldifOf(await makeLdif('--users', '1'), `${account('foo')}objectClass: simpleSecurityObject\nuserPassword: {FOO}bar\n`);
    const line = lineOf(ldif, `dn: uid=foo,${PEOPLE_DN}`);
    await inTempDir(async (dir) => {
      const result = await importLdif(dir, ldif);
      assert.equal(result.code, 1);
      assert.match(result.stderr, new RegExp(`line ${line}\\b.*unknown password scheme \\{FOO\\}`));
      assert.ok(!(await exportedDns(join(dir, 'db'))).includes(`uid=foo,${PEOPLE_DN}`));
    });
  });
});

describe('import-ldif: errors name their line', () => {
  interface BadRecord {
    readonly what: string;
    readonly record: string;
    /** The line the message must name. */
    readonly at: string;
    readonly reason: RegExp;
  }

  const BAD: readonly BadRecord[] = [
    {
      what: 'an entry whose parent is missing',
      record: 'dn: uid=x,ou=Nowhere,dc=example,dc=com\nobjectClass: top\nobjectClass: account\nuid: x\n',
      at: 'dn: uid=x,ou=Nowhere,dc=example,dc=com',
      reason: /parent entry ou=Nowhere,dc=example,dc=com does not exist/,
    },
    {
      what: 'a duplicate DN',
      record: account('user.2'),
      at: `dn: uid=user.2,${PEOPLE_DN}`,
      reason: /already exists/,
    },
    {
      what: 'a duplicate DN in another case and spacing',
      record: 'dn: UID=USER.1, ou=people,dc=example,dc=com\nobjectClass: top\nobjectClass: account\nuid: USER.1\n',
      at: 'dn: UID=USER.1, ou=people,dc=example,dc=com',
      reason: /already exists/,
    },
    {
      what: 'an entry without objectClass',
      record: `dn: uid=noclass,${PEOPLE_DN}\nuid: noclass\n`,
      at: `dn: uid=noclass,${PEOPLE_DN}`,
      reason: /no objectClass attribute/,
    },
    {
      what: 'a value given twice (in another case), which an add refuses too',
      record: `dn: uid=twice,${PEOPLE_DN}\nobjectClass: top\nobjectClass: account\nuid: twice\ndescription: dup\nDESCRIPTION: DUP\n`,
      at: `dn: uid=twice,${PEOPLE_DN}`,
      reason: /description: value #1 provided more than once/,
    },
    {
      what: 'a malformed line',
      record: `dn: uid=malformed,${PEOPLE_DN}\nobjectClass: account\ncn:: ***\nuid: malformed\n`,
      at: 'cn:: ***',
      reason: /invalid base64/,
    },
  ];

  /** A load as the entries come, and one through sorted runs (an empty database's, for large files and standard input). */
  const ORDERS = ['--no-sort', '--sort'] as const;

  /** make-ldif's base, ou=People and user.0 .. user.2. */
  const GOOD_DNS = [BASE_DN, PEOPLE_DN, ...[0, 1, 2].map((n) => `uid=user.${n},${PEOPLE_DN}`)];

  for (const bad of BAD) for (const order of ORDERS) {
    test(`without --continue-on-error (${order}), ${bad.what} stops the import, named by line; the entries before it are kept, none after it`, async () => {
      const ldif = ldifOf(await makeLdif('--users', '3'), bad.record, account('after'));
      const line = lineOf(ldif, bad.at);
      await inTempDir(async (dir) => {
        const result = await importLdif(dir, ldif, [order]);
        assert.equal(result.code, 1, result.stderr);
        assert.match(result.stderr, new RegExp(`^leveldap: import stopped at line ${line}\\b`), result.stderr);
        assert.match(result.stderr, bad.reason);
        const dns = await exportedDns(join(dir, 'db'));
        assert.deepEqual(GOOD_DNS.filter((dn) => !dns.includes(dn)), [], 'every entry before it is in the database');
        assert.deepEqual(dns.filter((dn) => !GOOD_DNS.includes(dn)), [], 'nothing from it or after it is in the database');
        assert.match(result.stderr, /; 5 entries were imported before it\n$/);
      });
    });
  }

  test('without --continue-on-error, the import stops at the first problem even when a malformed line follows it', async () => {
    const [missingParent, malformed] = [BAD[0]!, BAD[BAD.length - 1]!];
    const ldif = ldifOf(await makeLdif('--users', '3'), missingParent.record, malformed.record);
    await inTempDir(async (dir) => {
      const result = await importLdif(dir, ldif);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, new RegExp(`^leveldap: import stopped at line ${lineOf(ldif, missingParent.at)}\\b`), result.stderr);
      assert.match(result.stderr, missingParent.reason);
    });
  });

  for (const order of ORDERS) test(`with --continue-on-error (${order}) every bad entry is skipped and reported by line, the good ones after them are imported, exit 1`, async () => {
    const goods = BAD.map((_bad, i) => `good-${i}`);
    const ldif = ldifOf(await makeLdif('--users', '3'), ...BAD.flatMap((bad, i) => [bad.record, account(goods[i]!)]));
    await inTempDir(async (dir) => {
      const result = await importLdif(dir, ldif, ['--continue-on-error', order]);
      assert.equal(result.code, 1, result.stderr);
      assert.deepEqual(counts(result), { imported: 5 + goods.length, skipped: BAD.length });
      assert.match(result.stdout, new RegExp(`, ${BAD.length} skipped in `));
      const reports = result.stderr.split('\n').filter(Boolean);
      assert.equal(reports.length, BAD.length, result.stderr);
      for (const bad of BAD) {
        const line = lineOf(ldif, bad.at);
        const report = reports.find((text) => text.startsWith(`leveldap: skipped line ${line} `) || text.startsWith(`leveldap: skipped line ${line}:`));
        assert.ok(report, `${bad.what}: a report for line ${line} in ${result.stderr}`);
        assert.match(report, bad.reason);
      }
      const dns = await exportedDns(join(dir, 'db'));
      assert.deepEqual(dns.sort(), [...GOOD_DNS, ...goods.map((uid) => `uid=${uid},${PEOPLE_DN}`)].sort());
    });
  });

  test('a change record (changetype: modify, delete, modrdn) is reported as not importable, by line', async () => {
    const ldif = ldifOf(
      'dn: dc=example,dc=com\nchangetype: add\nobjectClass: top\nobjectClass: domain\ndc: example\n',
      'dn: dc=example,dc=com\nchangetype: modify\nreplace: description\ndescription: changed\n-\n',
      'dn: uid=gone,dc=example,dc=com\nchangetype: delete\n',
      'dn: uid=a,dc=example,dc=com\nchangetype: modrdn\nnewrdn: uid=b\ndeleteoldrdn: 1\n',
    );
    await inTempDir(async (dir) => {
      const stopped = await importLdif(dir, ldif, [], join(dir, 'stopped'));
      assert.equal(stopped.code, 1);
      assert.match(stopped.stderr, new RegExp(`import stopped at line ${lineOf(ldif, 'changetype: modify') - 1}\\b.*changetype modify cannot be imported`));

      const skipped = await importLdif(dir, ldif, ['--continue-on-error'], join(dir, 'skipped'));
      assert.equal(skipped.code, 1);
      assert.deepEqual(counts(skipped), { imported: 1, skipped: 3 });
      for (const kind of ['modify', 'delete', 'modrdn']) {
        const line = lineOf(ldif, `changetype: ${kind}`) - 1;
        assert.match(skipped.stderr, new RegExp(`skipped line ${line}\\b.*changetype ${kind} cannot be imported`));
      }
      assert.deepEqual(await exportedDns(join(dir, 'skipped')), [BASE_DN]);
    });
  });
});

describe('import-ldif killed while it writes', () => {
  test('the database says so: import-ldif and serve warn that an import did not finish, until an import into it ends', async () => {
    await inTempDir(async (dir) => {
      const db = join(dir, 'db');
      // From standard input that does not end: the import writes what came, then waits for more, and is killed there.
      const child = spawn(process.execPath, [leveldapBin, 'import-ldif', '-', '--data', db, '--no-sort', '--workers', '0'], { stdio: ['pipe', 'ignore', 'ignore'] });
      child.stdin.on('error', () => {}); // EPIPE once it is killed
      child.stdin.write(await makeLdif('--users', '1500'));
      await new Promise((resolve) => setTimeout(resolve, 4000));
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('close', resolve));
      const kept = (await exportLdif(db)).split('\ndn: ').length;
      assert.ok(kept > 1, 'some entries were written before the kill');
      const served = await serveOnce(dir);
      assert.ok(served.some((record) => record['msg'] === UNFINISHED), `serve warns: ${JSON.stringify(served.filter((record) => record['level'] === 40))}`);
      const more = await importLdif(dir, `dn: uid=late,${PEOPLE_DN}\nobjectClass: account\nuid: late\n`);
      assert.equal(more.code, 0, more.stderr);
      assert.match(more.stderr, /an earlier import into .* did not finish/);
      assert.ok(!(await serveOnce(dir)).some((record) => record['msg'] === UNFINISHED), 'an import that ended removed the mark');
    });
  });
});

const SCHEMA_CHANGED = /the schema in force maps attribute types otherwise than when this database was loaded/;

describe('the schema a database was loaded with', () => {
  test('serve and import-ldif under a schema that maps a type otherwise name the types; the same schema says nothing', async () => {
    await inTempDir(async (dir) => {
      const schema = join(dir, 'tags.schema');
      await writeFile(schema, [
        "attributetype ( 1.3.6.1.4.1.99999.1.1 NAME 'deviceTag' EQUALITY caseExactMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )",
        "objectclass ( 1.3.6.1.4.1.99999.2.1 NAME 'taggedThing' SUP top STRUCTURAL MUST deviceTag )", '',
      ].join('\n'));
      const loaded = await importLdif(dir, `dn: ${BASE_DN}\nobjectClass: domain\ndc: example\n\ndn: deviceTag=AbC,${BASE_DN}\nobjectClass: taggedThing\ndeviceTag: AbC\n`, ['--schema', schema]);
      assert.equal(loaded.code, 0, loaded.stderr);
      assert.doesNotMatch(loaded.stderr, SCHEMA_CHANGED);
      const warnings = (records: LogRecord[]) => records.filter((record) => SCHEMA_CHANGED.test(String(record['msg'])));
      assert.deepEqual(warnings(await serveOnce(dir, ['--schema', schema])), [], 'served with the schema it was loaded with');
      // Without the file, deviceTag is unknown (a caseIgnore string): the entry's DN no longer leads to its key.
      const [warning] = warnings(await serveOnce(dir));
      assert.ok(warning, 'serve warns');
      assert.deepEqual(warning['types'], ['1.3.6.1.4.1.99999.1.1', 'devicetag']);
      const more = await importLdif(dir, `dn: ou=More,${BASE_DN}\nobjectClass: organizationalUnit\nou: More\n`);
      assert.equal(more.code, 0, more.stderr);
      assert.match(more.stderr, SCHEMA_CHANGED);
      assert.match(more.stderr, /devicetag/);
    });
  });
});

describe('import-ldif --sort without room for its runs', { skip: tmpfsUnavailable() }, () => {
  test('stops with a message naming the runs\' directory and what to do, exit 1, and leaves no runs behind', async () => {
    const disk = await mountTmpfs(3);
    try {
      await inTempDir(async (dir) => {
        const file = join(dir, 'users.ldif');
        const accounts = Array.from({ length: 3000 }, (_, n) => `${account(`a${n}`)}description: ${'x'.repeat(1000)}\n`);
        await writeFile(file, ldifOf((await makeLdif('--users', '0')), ...accounts));
        const data = join(disk.path, 'db');
        const result = await leveldap(['import-ldif', file, '--data', data, '--sort']);
        assert.equal(result.code, 1, result.stderr);
        assert.match(result.stderr, /^leveldap: cannot keep the sorted runs of this load in \S+import-runs: ENOSPC: no space left on device.*--no-sort/);
        assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
        assert.equal(existsSync(join(data, 'import-runs')), false, 'the runs are removed');
      });
    } finally {
      await disk.unmount();
    }
  });
});

describe('import-ldif: input and database', () => {
  test('reads the LDIF from standard input when the file is -', async () => {
    const ldif = await makeLdif('--users', '3');
    await inTempDir(async (dir) => {
      const result = await leveldap(['import-ldif', '-', '--data', join(dir, 'db')], ldif);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(counts(result), { imported: 5, skipped: 0 });
      assert.equal((await exportedDns(join(dir, 'db'))).length, 5);
    });
  });

  test('a file that is missing, or a directory, is a usage error in one line (exit 2)', async () => {
    await inTempDir(async (dir) => {
      for (const [file, reason] of [[join(dir, 'missing.ldif'), /ENOENT/], [dir, /is a directory/]] as const) {
        const result = await leveldap(['import-ldif', file, '--data', join(dir, 'db')]);
        assert.equal(result.code, 2, result.stderr);
        assert.match(result.stderr, new RegExp(`^leveldap: cannot read ${file}: `));
        assert.match(result.stderr, reason);
        assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack');
      }
    });
  });

  test('refuses a database another process holds open, saying it is in use', async () => {
    const storeModule = pathToFileURL(join(repoRoot, 'dist', 'src', 'store', 'index.js')).href;
    const holder = `import { DirectoryStore } from ${JSON.stringify(storeModule)};
      await DirectoryStore.open(process.argv[1]); console.log('open'); setInterval(() => {}, 1000);`;
    await inTempDir(async (dir) => {
      const db = join(dir, 'db');
      const child = spawn(process.execPath, ['--input-type=module', '-e', holder, db], { stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const childErrors = collect(child.stderr);
      try {
        await new Promise<void>((resolve, reject) => {
          child.stdout.setEncoding('utf8');
          child.stdout.on('data', (chunk: string) => { if (chunk.includes('open')) resolve(); });
          child.once('error', reject);
          child.once('exit', (code) => reject(new Error(`the holding process exited with ${code}: ${childErrors()}`)));
        });
        const result = await importLdif(dir, await makeLdif('--users', '1'), [], db);
        assert.notEqual(result.code, 0);
        assert.equal(result.code, 1, result.stderr);
        assert.match(result.stderr, /in use by another process/);
        assert.equal(result.stdout, '');
        const exported = await leveldap(['export-ldif', '--data', db]);
        assert.equal(exported.code, 1);
        assert.match(exported.stderr, /in use by another process/);
      } finally {
        child.kill();
        await exited;
      }
    });
  });
});

describe('export-ldif --base-dn', () => {
  test('exports only that entry and its subtree; a base that does not exist is an error', async () => {
    const ldif = ldifOf(await makeLdif('--users', '3'), `dn: ou=Groups,${BASE_DN}\nobjectClass: organizationalUnit\nou: Groups\n`);
    await inTempDir(async (dir) => {
      const db = join(dir, 'db');
      const result = await importLdif(dir, ldif);
      assert.equal(result.code, 0, result.stderr);
      assert.equal((await exportedDns(db)).length, 6);
      const subtree = await exportedDns(db, '--base-dn', PEOPLE_DN);
      assert.deepEqual(subtree, [PEOPLE_DN, ...[0, 1, 2].map((n) => `uid=user.${n},${PEOPLE_DN}`)]);

      const missing = await leveldap(['export-ldif', '--data', db, '--base-dn', `ou=Nope,${BASE_DN}`]);
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /ou=Nope,dc=example,dc=com does not exist/);
      assert.equal(missing.stdout, '');
    });
  });
});
