/**
 * The PostgreSQL store from the command line, against a real cluster started here
 * (src/harness/postgres.ts): `import-ldif --store` (its rows; the refusals, word for word those of
 * a LevelDB import given the same files, into an empty store and a populated one; the schema
 * check and password hashing), `export-ldif --store` (the imported content, in the LevelDB
 * export's format), and `nodes` (a real node's slot listed, --drop refused while the node runs,
 * done once it stopped).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { parseLdif, type LdifRecord } from '../../src/ldif/index.js';
import { postgresUnavailable, startPostgres, type PostgresCluster } from '../../src/harness/postgres.js';
import { run, type RunResult } from '../../src/harness/run.js';
import { decodeEntry } from '../../src/store/codec.js';
import { parseDn } from '../../src/store/dn.js';
import { dnKey, parentKeyOf } from '../../src/store/keys.js';
import { eventually } from '../helpers/eventually.js';
import { ldapTool } from '../helpers/ldap-client.js';
import { startLeveldap, type LeveldapServer } from '../helpers/leveldap-server.js';
import { leveldapBin } from '../helpers/paths.js';
import { tempDir } from '../helpers/store.js';

const leveldap = (args: string[]): Promise<RunResult> => run(process.execPath, [leveldapBin, ...args]);

const BASE_DN = 'dc=example,dc=com';
const PEOPLE_DN = `ou=People,${BASE_DN}`;
const OPERATIONAL = ['structuralobjectclass', 'entryuuid', 'creatorsname', 'createtimestamp', 'modifiersname', 'modifytimestamp'];

const unavailable = postgresUnavailable();

/** One node as `leveldap nodes --json` lists it. */
interface NodeJson {
  readonly node: string;
  readonly slot: string;
  readonly active: boolean;
  readonly confirmed: string | null;
  readonly walRetainedBytes: number | null;
}

/** 1-based number of the line of `text` that equals `line` (the last such). */
function lineOf(text: string, line: string): number {
  const index = text.split('\n').lastIndexOf(line);
  assert.notEqual(index, -1, `no line ${JSON.stringify(line)}`);
  return index + 1;
}

describe('the PostgreSQL store from the command line: import-ldif, export-ldif, nodes', { skip: unavailable ?? false }, () => {
  let cluster: PostgresCluster;
  let work: { path: string; remove: () => Promise<void> };
  let databases = 0;

  before(async () => {
    cluster = await startPostgres();
    work = await tempDir('leveldap-pgcli-');
  });

  after(async () => {
    await cluster?.destroy();
    await work?.remove();
  });

  /** A new, empty database of the cluster: its URL. */
  async function newStore(): Promise<string> {
    databases += 1;
    const name = `store${databases}`;
    await cluster.sql(`CREATE DATABASE ${name}`);
    return cluster.url.replace('/leveldap?', `/${name}?`);
  }

  /** A path in the work directory, new each call. */
  function fresh(name: string): string {
    databases += 1;
    return join(work.path, `${name}-${databases}`);
  }

  async function ldifFile(text: string): Promise<string> {
    const file = fresh('input.ldif');
    await writeFile(file, text);
    return file;
  }

  async function makeLdif(...args: string[]): Promise<string> {
    const result = await leveldap(['make-ldif', ...args]);
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  }

  async function exported(...args: string[]): Promise<string> {
    const result = await leveldap(['export-ldif', ...args]);
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  }

  async function rows<R extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<R>(sql, params)).rows;
    } finally {
      await client.end();
    }
  }

  /** What an import said, its time taken out (and the LevelDB compaction line, which a PostgreSQL import has not). */
  function said(result: RunResult): RunResult {
    const stdout = result.stdout.replace(/ in [\d.]+ s \(\d+ entries\/s\)/, ' in T').replace(/compacted the database in [\d.]+ s\n/, '');
    return { code: result.code, stdout, stderr: result.stderr };
  }

  /** The same file imported into the LevelDB at `data` and the PostgreSQL store at `url`: what each said. */
  async function importBoth(file: string, data: string, url: string, args: string[] = []): Promise<{ leveldb: RunResult; postgres: RunResult }> {
    const leveldb = await leveldap(['import-ldif', file, '--data', data, ...args]);
    const postgres = await leveldap(['import-ldif', file, '--store', url, ...args]);
    return { leveldb, postgres };
  }

  function assertSameOutcome(both: { leveldb: RunResult; postgres: RunResult }): void {
    assert.deepEqual(said(both.postgres), said(both.leveldb));
    assert.doesNotMatch(both.postgres.stdout, /compacted/);
  }

  async function dnsOf(ldif: string): Promise<string[]> {
    return (await parseLdif(ldif)).map((record) => record.dn);
  }

  const account = (uid: string, parent = PEOPLE_DN): string => `dn: uid=${uid},${parent}\nobjectClass: top\nobjectClass: account\nuid: ${uid}\n`;
  const ldifOf = (...records: string[]): string => `${records.map((record) => record.trimEnd()).join('\n\n')}\n`;

  /** A record's values as (lower-case name, value) strings. */
  function pairs(record: LdifRecord): string[] {
    assert.ok(record.kind === 'entry' || record.kind === 'add', 'a content record');
    return record.attributes.map((value) => `${value.name.toLowerCase()}: ${value.value.toString('base64')}`);
  }

  test('import-ldif --store loads make-ldif users and groups: a row per entry, its parent\'s key (NULL for the naming context), its record as stored', async () => {
    const url = await newStore();
    const ldif = await makeLdif('--users', '200', '--groups', '5', '--scheme', 'SSHA512');
    const input = await parseLdif(ldif);
    const result = await leveldap(['import-ldif', await ldifFile(ldif), '--store', url]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`^imported ${input.length} entries in [\\d.]+ s \\(\\d+ entries/s\\)\\n$`));
    const stored = await rows<{ key: string; parent: string | null; record: Buffer }>(url, 'SELECT key, parent, record FROM leveldap_entries ORDER BY key');
    assert.equal(stored.length, input.length);
    for (const row of stored) {
      assert.equal(row.key, dnKey(parseDn(decodeEntry(row.record).dn)), 'the key is the dnKey of the record\'s DN');
      assert.equal(row.parent, row.key === dnKey(parseDn(BASE_DN)) ? null : parentKeyOf(row.key));
    }
    const dn = `uid=user.7,${PEOPLE_DN}`;
    const [row] = await rows<{ parent: string; record: Buffer }>(url, 'SELECT parent, record FROM leveldap_entries WHERE key = $1', [dnKey(parseDn(dn))]);
    assert.ok(row, `a row for ${dn}`);
    assert.equal(row.parent, dnKey(parseDn(PEOPLE_DN)));
    const entry = decodeEntry(row.record);
    assert.equal(entry.dn, dn);
    const value = (name: string): string[] => entry.attributes.filter((attribute) => attribute.name.toLowerCase() === name).flatMap((attribute) => attribute.values.map(String));
    const given = input.find((record) => record.dn === dn)!;
    assert.ok(given.kind === 'entry');
    assert.deepEqual(value('userpassword'), given.attributes.filter((attribute) => attribute.name === 'userPassword').map((attribute) => String(attribute.value)), 'a {SSHA512} value is kept as it is');
    assert.deepEqual(value('creatorsname'), ['cn=Directory Manager']);
    assert.deepEqual(value('structuralobjectclass'), ['inetOrgPerson']);
    assert.match(value('entryuuid')[0] ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-/);
    const groups = await rows<{ record: Buffer }>(url, 'SELECT record FROM leveldap_entries WHERE key LIKE $1', [`${dnKey(parseDn(`ou=Groups,${BASE_DN}`))}\x01%`]);
    assert.equal(groups.length, 5);
    assert.ok(stored.every((found) => !decodeEntry(found.record).attributes.some((attribute) => attribute.name.toLowerCase() === 'memberof')), 'memberOf is never stored');
    assert.deepEqual(await rows(url, 'SELECT name FROM leveldap_settings'), [], 'the settings are untouched');
    assert.equal((await rows(url, "SELECT 1 FROM pg_publication WHERE pubname = 'leveldap'")).length, 1, 'the schema was made (ensureSchema)');
  });

  test('export-ldif --store writes the imported content, in the LevelDB export\'s format; --base-dn a subtree; a missing base refused alike', async () => {
    const url = await newStore();
    const ldif = await makeLdif('--users', '50', '--groups', '3', '--scheme', 'SSHA512');
    assert.equal((await leveldap(['import-ldif', await ldifFile(ldif), '--store', url])).code, 0);
    const text = await exported('--store', url);
    const records = await parseLdif(text);
    const input = await parseLdif(ldif);
    assert.deepEqual([...(await dnsOf(text))].sort(), input.map((record) => record.dn).sort());
    for (const given of input) {
      const out = records.find((record) => record.dn === given.dn)!;
      const extra = pairs(out).filter((pair) => !pairs(given).includes(pair)).map((pair) => pair.slice(0, pair.indexOf(':')));
      assert.deepEqual(pairs(out).filter((pair) => pairs(given).includes(pair)), pairs(given), `${given.dn}: every value imported comes back`);
      assert.deepEqual(extra, OPERATIONAL, `${given.dn}: and the operational attributes import added`);
    }
    const keys = records.map((record) => dnKey(parseDn(record.dn)));
    assert.deepEqual(keys, [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))), 'in key order: parents before children');
    const data = fresh('db');
    assert.equal((await leveldap(['import-ldif', await ldifFile(text), '--data', data])).code, 0);
    assert.equal(await exported('--data', data), text, 'a LevelDB holding the same entries exports the same text');
    assert.equal(await exported('--store', url, '--base-dn', PEOPLE_DN), await exported('--data', data, '--base-dn', PEOPLE_DN));
    const missing = await leveldap(['export-ldif', '--store', url, '--base-dn', `ou=Nowhere,${BASE_DN}`]);
    assert.equal(missing.code, 1);
    assert.deepEqual(missing, await leveldap(['export-ldif', '--data', data, '--base-dn', `ou=Nowhere,${BASE_DN}`]));
  });

  test('into a populated store, duplicates, missing parents and a second naming context are refused as the LevelDB import refuses them, stopping or skipping', async () => {
    const url = await newStore();
    const data = fresh('db');
    assertSameOutcome(await importBoth(await ldifFile(await makeLdif('--users', '5', '--scheme', 'SSHA512')), data, url));
    const bad = ldifOf(
      account('fresh.0'),
      account('user.3'), // in the store already
      'dn: UID=USER.1, ou=people,dc=example,dc=com\nobjectClass: top\nobjectClass: account\nuid: USER.1\n',
      account('x', `ou=Nowhere,${BASE_DN}`),
      account('fresh.1'), // its parent is in the store only
      account('fresh.1'), // twice in the file
      `dn: ou=Sub,${BASE_DN}\nobjectClass: organizationalUnit\nou: Sub\n`,
      account('y', `ou=Sub,${BASE_DN}`),
      'dn: dc=other\nobjectClass: domain\ndc: other\n',
      `dn: uid=noclass,${PEOPLE_DN}\nuid: noclass\n`,
    );
    const file = await ldifFile(bad);
    const stopped = await importBoth(file, data, url);
    assertSameOutcome(stopped);
    assert.equal(stopped.postgres.code, 1);
    const at = (dn: string): number => lineOf(bad, `dn: ${dn}`);
    assert.equal(stopped.postgres.stderr, `leveldap: import stopped at line ${at(`uid=user.3,${PEOPLE_DN}`)} (uid=user.3,${PEOPLE_DN}): entry uid=user.3,${PEOPLE_DN} already exists; 1 entries were imported before it\n`);
    const skipped = await importBoth(file, data, url, ['--continue-on-error']);
    assertSameOutcome(skipped);
    assert.match(skipped.postgres.stdout, /^imported 3 entries, 7 skipped in /);
    assert.deepEqual(skipped.postgres.stderr.split('\n').filter(Boolean).map((line) => /^leveldap: skipped line (\d+) .*: (.*)$/.exec(line)?.slice(1)), [
      [String(at(`uid=fresh.0,${PEOPLE_DN}`)), `entry uid=fresh.0,${PEOPLE_DN} already exists`],
      [String(at(`uid=user.3,${PEOPLE_DN}`)), `entry uid=user.3,${PEOPLE_DN} already exists`],
      [String(at('UID=USER.1, ou=people,dc=example,dc=com')), 'entry UID=USER.1, ou=people,dc=example,dc=com already exists'],
      [String(at(`uid=x,ou=Nowhere,${BASE_DN}`)), `parent entry ou=Nowhere,${BASE_DN} does not exist`],
      [String(at(`uid=fresh.1,${PEOPLE_DN}`)), `entry uid=fresh.1,${PEOPLE_DN} already exists`],
      [String(at('dc=other')), 'dc=other has no parent and naming contexts cannot be added here'],
      [String(at(`uid=noclass,${PEOPLE_DN}`)), 'no objectClass attribute'],
    ]);
    assert.deepEqual(await dnsOf(await exported('--store', url)), await dnsOf(await exported('--data', data)));
    const [sub] = await rows<{ parent: string }>(url, 'SELECT parent FROM leveldap_entries WHERE key = $1', [dnKey(parseDn(`uid=y,ou=Sub,${BASE_DN}`))]);
    assert.equal(sub?.parent, dnKey(parseDn(`ou=Sub,${BASE_DN}`)));
  });

  test('into an empty store too (no existence reads): refusals as LevelDB\'s, --suffix starts a second naming context, the schema check and --no-schema-check, --scheme hashes clear passwords', async () => {
    const url = await newStore();
    const data = fresh('db');
    const ldif = ldifOf(
      await makeLdif('--users', '3'),
      account('user.2'),
      account('x', `ou=Nowhere,${BASE_DN}`),
      'dn: dc=other\nobjectClass: domain\ndc: other\n',
      'dn: dc=allowed\nobjectClass: domain\ndc: allowed\n',
      `dn: uid=nosn,${PEOPLE_DN}\nobjectClass: inetOrgPerson\nuid: nosn\ncn: No Surname\n`,
    );
    const file = await ldifFile(ldif);
    const both = await importBoth(file, data, url, ['--continue-on-error', '--scheme', 'SSHA512', '--suffix', 'dc=allowed']);
    assertSameOutcome(both);
    assert.match(both.postgres.stdout, /^imported 6 entries, 4 skipped in /);
    assert.match(both.postgres.stderr, /requires attribute 'sn'/);
    const suffixes = await rows<{ key: string }>(url, 'SELECT key FROM leveldap_entries WHERE parent IS NULL ORDER BY key');
    assert.deepEqual(suffixes.map((row) => row.key), ['dc=allowed', dnKey(parseDn(BASE_DN))]);
    const [user] = await rows<{ record: Buffer }>(url, 'SELECT record FROM leveldap_entries WHERE key = $1', [dnKey(parseDn(`uid=user.1,${PEOPLE_DN}`))]);
    const password = decodeEntry(user!.record).attributes.find((attribute) => attribute.name === 'userPassword')!.values[0]!.toString();
    assert.match(password, /^\{SSHA512\}/, 'the clear password was hashed with --scheme');
    assert.equal((await leveldap(['encode-password', '--verify', password, 'password'])).code, 0, 'and verifies');
    const lax = await importBoth(await ldifFile(`dn: uid=nosn,${PEOPLE_DN}\nobjectClass: inetOrgPerson\nuid: nosn\ncn: No Surname\n`), data, url, ['--no-schema-check']);
    assertSameOutcome(lax);
    assert.match(lax.postgres.stdout, /^imported 1 entries in /);
    assert.deepEqual(await dnsOf(await exported('--store', url)), await dnsOf(await exported('--data', data)));
  });

  describe('nodes', () => {
    let url: string;
    let node: LeveldapServer | undefined;

    before(async () => {
      url = await newStore();
      const imported = await leveldap(['import-ldif', await ldifFile(await makeLdif('--users', '20', '--scheme', 'SSHA512')), '--store', url]);
      assert.equal(imported.code, 0, imported.stderr);
    });

    after(async () => {
      await node?.stop();
    });

    const nodes = async (): Promise<NodeJson[]> => {
      const result = await leveldap(['nodes', '--store', url, '--json']);
      assert.equal(result.code, 0, result.stderr);
      return (JSON.parse(result.stdout) as { nodes: NodeJson[] }).nodes;
    };

    test('lists the slot of a running node (active, its confirmed position, the WAL it keeps); --drop refuses it while the node runs, drops it once stopped', async () => {
      node = await startLeveldap({ empty: true, args: ['--store', url, '--node-name', 'pgcli-a'] });
      const bind = await ldapTool('ldapwhoami', node.url, [], { dn: `uid=user.4,${PEOPLE_DN}`, password: 'password' });
      assert.equal(bind.code, 0, `the node copied the imported users: ${bind.stderr}`);
      const [listed, ...others] = await nodes();
      assert.deepEqual(others, []);
      assert.equal(listed?.node, 'pgcli_a');
      assert.equal(listed.slot, 'leveldap_pgcli_a');
      assert.equal(listed.active, true);
      assert.match(listed.confirmed ?? '', /^[0-9A-F]+\/[0-9A-F]+$/);
      assert.ok(Number.isSafeInteger(listed.walRetainedBytes) && listed.walRetainedBytes! >= 0, `WAL retained: ${listed.walRetainedBytes}`);
      const table = await leveldap(['nodes', '--store', url]);
      assert.match(table.stdout, /^NODE +SLOT +ACTIVE +CONFIRMED +WAL RETAINED \(bytes\) +WAL STATUS\npgcli_a +leveldap_pgcli_a +yes +[0-9A-F]+\/[0-9A-F]+ +\d+ +reserved\n$/);

      const refused = await leveldap(['nodes', '--store', url, '--drop', 'pgcli-a']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^leveldap: the slot leveldap_pgcli_a is active: node pgcli_a is streaming from it \(PostgreSQL backend \d+\); stop that node first\n$/);
      assert.equal((await nodes()).length, 1, 'the slot is still there');

      await node.terminate();
      assert.ok(await eventually(async () => (await nodes())[0]?.active === false), 'the slot is inactive once the node stopped');
      const dropped = await leveldap(['nodes', '--store', url, '--drop', 'pgcli-a']);
      assert.equal(dropped.code, 0, dropped.stderr);
      assert.equal(dropped.stdout, 'dropped the slot leveldap_pgcli_a of node pgcli_a\n');
      assert.deepEqual(await nodes(), []);
      assert.equal((await leveldap(['nodes', '--store', url])).stdout, 'no leveldap node has a replication slot in this PostgreSQL store\n');
    });

    test('--drop takes the full slot name too; other slots are neither listed nor dropped; an unknown name is an error', async () => {
      await rows(url, "SELECT pg_create_logical_replication_slot('leveldap_gone', 'pgoutput'), pg_create_logical_replication_slot('other_tool', 'pgoutput')");
      assert.deepEqual((await nodes()).map((slot) => [slot.node, slot.active]), [['gone', false]]);
      const unknown = await leveldap(['nodes', '--store', url, '--drop', 'other_tool']);
      assert.equal(unknown.code, 1);
      assert.equal(unknown.stderr, 'leveldap: no node other_tool in this PostgreSQL store (its nodes: gone)\n');
      const dropped = await leveldap(['nodes', '--store', url, '--drop', 'leveldap_gone']);
      assert.equal(dropped.code, 0, dropped.stderr);
      assert.deepEqual(await nodes(), []);
      assert.deepEqual(await rows(url, 'SELECT slot_name FROM pg_replication_slots ORDER BY slot_name'), [{ slot_name: 'other_tool' }]);
    });
  });
});
