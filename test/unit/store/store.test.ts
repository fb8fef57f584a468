import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Level } from 'level';
import { BulkLoader, DirectoryError, DirectoryStore, StoreError, values, type Entry } from '../../../src/store/index.js';
import { BASE, PEOPLE, entry, peopleStore, person, tempDir } from '../../helpers/store.js';

const text = (entry: Entry | undefined, name: string): string[] => (entry ? values(entry, name).map((v) => v.toString()) : []);

async function collect(iterable: AsyncIterable<Entry>): Promise<string[]> {
  const dns: string[] = [];
  for await (const found of iterable) dns.push(found.dn);
  return dns;
}

function rejectsWith(code: number, promise: Promise<unknown>): Promise<void> {
  return assert.rejects(promise, (error: unknown) => error instanceof DirectoryError && error.code === code);
}

describe('DirectoryStore: adding and reading entries', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: DirectoryStore;

  before(async () => {
    dir = await tempDir();
    store = await peopleStore(dir.path, 50);
  });
  after(async () => { await store.close(); await dir.remove(); });

  test('an entry is found under any case and spacing of its DN, and keeps its DN as written', async () => {
    const found = await store.get('UID=User.1, ou=people,DC=Example,dc=COM');
    assert.equal(found?.dn, 'uid=user.1,ou=People,dc=example,dc=com');
    assert.deepEqual(text(found, 'commonName'), ['User 1']);
  });

  test('the store adds entryUUID, timestamps, creatorsName and modifiersName', async () => {
    const found = await store.get('dc=example,dc=com');
    assert.match(text(found, 'entryUUID')[0]!, /^[0-9a-f]{8}-[0-9a-f]{4}-/);
    assert.match(text(found, 'createTimestamp')[0]!, /^\d{14}Z$/);
    assert.deepEqual(text(found, 'creatorsName'), ['cn=admin']);
    assert.deepEqual(text(found, 'modifiersName'), ['cn=admin']);
  });

  test('refusals carry LDAP result codes: exists 68, no parent 32 with matchedDN, no objectClass 65, no RDN value 64', async () => {
    await rejectsWith(68, store.add(person(1)));
    await rejectsWith(68, store.add({ ...person(1), dn: 'UID=USER.1,OU=PEOPLE,DC=EXAMPLE,DC=COM' }));
    const orphan = entry('uid=x,ou=Nowhere,dc=example,dc=com', { objectClass: 'account', uid: 'x' });
    await assert.rejects(store.add(orphan), (error: unknown) => {
      assert.ok(error instanceof DirectoryError);
      assert.equal(error.code, 32);
      assert.equal(error.matchedDn, 'dc=example,dc=com');
      return true;
    });
    await rejectsWith(65, store.add(entry('uid=y,ou=People,dc=example,dc=com', { uid: 'y' })));
    await rejectsWith(64, store.add(entry('uid=z,ou=People,dc=example,dc=com', { objectClass: 'account', uid: 'other' })));
    await rejectsWith(32, store.add(entry('dc=other,dc=org', { objectClass: 'domain', dc: 'other' })));
  });

  test('base, one-level and subtree scopes', async () => {
    assert.deepEqual(await collect(store.search('dc=example,dc=com', 'base')), ['dc=example,dc=com']);
    assert.deepEqual(await collect(store.search('dc=example,dc=com', 'one')), ['ou=People,dc=example,dc=com']);
    assert.equal((await collect(store.search('ou=people,dc=example,dc=com', 'one'))).length, 50);
    const subtree = await collect(store.search('dc=example,dc=com', 'sub'));
    assert.equal(subtree.length, 52);
    assert.equal(subtree[0], 'dc=example,dc=com', 'parents come before children');
    assert.deepEqual(await collect(store.search('uid=user.3,ou=People,dc=example,dc=com', 'sub')), ['uid=user.3,ou=People,dc=example,dc=com']);
    assert.deepEqual(await collect(store.search('uid=nobody,ou=People,dc=example,dc=com', 'sub')), []);
  });

  test('an indexed equality term reads only the matching entries, not the subtree', async () => {
    const before = store.stats.entriesRead;
    const found = await collect(store.search('dc=example,dc=com', 'sub', { equality: { attribute: 'UID', value: Buffer.from('USER.7') } }));
    assert.deepEqual(found, ['uid=user.7,ou=People,dc=example,dc=com']);
    assert.equal(store.stats.entriesRead - before, 1);
  });

  test('the equality index follows the matching rule and the scope', async () => {
    const bySn = await collect(store.search('ou=People,dc=example,dc=com', 'one', { equality: { attribute: 'surname', value: Buffer.from('number  3') } }));
    assert.equal(bySn.length, 5);
    const outside = await collect(store.search('uid=user.1,ou=People,dc=example,dc=com', 'sub', { equality: { attribute: 'uid', value: Buffer.from('user.2') } }));
    assert.deepEqual(outside, []);
  });

  test('the presence index lists the entries having the attribute', async () => {
    const before = store.stats.entriesRead;
    const withMail = await collect(store.search('dc=example,dc=com', 'sub', { present: 'mail' }));
    assert.equal(withMail.length, 50);
    assert.equal(store.stats.entriesRead - before, 50);
  });

  test('an unindexed attribute falls back to the scope scan', async () => {
    const found = await collect(store.search('dc=example,dc=com', 'sub', { equality: { attribute: 'description', value: Buffer.from('x') } }));
    assert.equal(found.length, 52, 'candidates; the caller filters');
  });

  test('hasChildren and naming contexts', async () => {
    assert.equal(await store.hasChildren('ou=People,dc=example,dc=com'), true);
    assert.equal(await store.hasChildren('uid=user.1,ou=People,dc=example,dc=com'), false);
    assert.deepEqual(await store.suffixes(), ['dc=example,dc=com']);
  });
});

describe('DirectoryStore: the database itself', () => {
  test('a second open of a database in use is refused with a clear message', async () => {
    const dir = await tempDir();
    const store = await DirectoryStore.open(dir.path);
    await assert.rejects(DirectoryStore.open(dir.path), (error: unknown) => {
      assert.ok(error instanceof StoreError);
      assert.match(error.message, /in use by another process/);
      return true;
    });
    await store.close();
    await dir.remove();
  });

  test('an unknown store format, or a LevelDB that is not ours, is refused', async () => {
    const dir = await tempDir();
    const raw = new Level<string, string>(dir.path);
    await raw.put('m\x00format', '99');
    await raw.close();
    await assert.rejects(DirectoryStore.open(dir.path), /has store format 99; this leveldap reads format 2/);
    const other = await tempDir();
    const foreign = new Level<string, string>(other.path);
    await foreign.put('something', 'else');
    await foreign.close();
    await assert.rejects(DirectoryStore.open(other.path), /is not a leveldap database/);
    await dir.remove();
    await other.remove();
  });

  test('reopening keeps entries and the index configuration', async () => {
    const dir = await tempDir();
    let store = await DirectoryStore.open(dir.path, { indexes: ['uid', 'employeeNumber'] });
    await store.add(BASE, { allowNewSuffix: true });
    await store.close();
    store = await DirectoryStore.open(dir.path);
    assert.deepEqual([...store.indexed], ['employeenumber', 'uid']);
    assert.equal((await store.get('dc=example,dc=com'))?.dn, 'dc=example,dc=com');
    await store.close();
    await dir.remove();
  });

  test('acknowledged adds survive kill -9', async () => {
    const dir = await tempDir();
    const child = spawn(process.execPath, [new URL('../../helpers/crash-writer.js', import.meta.url).pathname, dir.path], { stdio: ['ignore', 'pipe', 'inherit'] });
    let acked = -1;
    await new Promise<void>((resolve) => {
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        for (const match of chunk.matchAll(/ack (\d+)/g)) acked = Number(match[1]);
        if (acked >= 30) { child.kill('SIGKILL'); resolve(); }
      });
    });
    await new Promise((resolve) => child.once('exit', resolve));
    const store = await DirectoryStore.open(dir.path);
    for (let n = 0; n <= acked; n += 1) assert.ok(await store.get(`uid=user.${n},ou=People,dc=example,dc=com`), `user.${n} was acknowledged`);
    await store.close();
    await dir.remove();
  });
});

describe('BulkLoader', () => {
  test('checks parents and duplicates against unflushed entries, and makes all durable on finish', async () => {
    const dir = await tempDir();
    const store = await DirectoryStore.open(dir.path);
    const loader = new BulkLoader(store, { batchEntries: 7, actor: 'cn=import' });
    await loader.add(BASE);
    await loader.add(PEOPLE);
    for (let n = 0; n < 20; n += 1) await loader.add(person(n));
    await rejectsWith(68, loader.add(person(19)));
    await rejectsWith(68, loader.add(person(3)));
    await rejectsWith(32, loader.add(entry('uid=a,ou=Missing,dc=example,dc=com', { objectClass: 'account', uid: 'a' })));
    await loader.finish();
    assert.equal((await collect(store.search('dc=example,dc=com', 'sub'))).length, 22);
    assert.deepEqual(text(await store.get('uid=user.19,ou=people,dc=example,dc=com'), 'creatorsName'), ['cn=import']);
    await store.close();
    await dir.remove();
  });
});

describe('review regressions', () => {
  test('presence finds values that start beyond the BMP, once per entry', async () => {
    const dir = await tempDir();
    const store = await DirectoryStore.open(dir.path);
    await store.add(BASE, { allowNewSuffix: true });
    await store.add(entry('cn=emoji,dc=example,dc=com', { objectClass: 'person', cn: 'emoji', sn: ['😀 smile', 'plain', 'zzz'] }));
    await store.add(entry('cn=plain,dc=example,dc=com', { objectClass: 'person', cn: 'plain', sn: 'plain' }));
    const found = await collect(store.search('dc=example,dc=com', 'sub', { present: 'sn' }));
    assert.deepEqual(found.sort(), ['cn=emoji,dc=example,dc=com', 'cn=plain,dc=example,dc=com']);
    await store.close();
    await dir.remove();
  });

  test('a bulk load sees the batch still being written: no duplicate slips through, no parent looks missing', async () => {
    const dir = await tempDir();
    const store = await DirectoryStore.open(dir.path);
    const loader = new BulkLoader(store, { batchEntries: 5 });
    assert.deepEqual(await loader.addAll([BASE, PEOPLE]), [undefined, undefined]);
    for (let n = 0; n < 40; n += 1) {
      const results = await loader.addAll([person(n), person(n)]);
      assert.equal(results[0], undefined, `user.${n} added`);
      assert.ok(results[1] instanceof DirectoryError && results[1].code === 68, `the second user.${n} is a duplicate`);
    }
    await loader.finish();
    await store.close();
    await dir.remove();
  });

  test('only the first parentless entry of a load starts a naming context; a typo is a missing parent', async () => {
    const dir = await tempDir();
    const store = await DirectoryStore.open(dir.path);
    const loader = new BulkLoader(store);
    const typo = entry('uid=b,ou=Peopel,dc=exmaple,dc=com', { objectClass: 'account', uid: 'b' });
    const [base, stray] = await loader.addAll([BASE, typo]);
    assert.equal(base, undefined);
    assert.ok(stray instanceof DirectoryError && stray.code === 32);
    const listed = new BulkLoader(store, { suffixes: ['o=Other'] });
    assert.deepEqual(await listed.addAll([entry('o=Other', { objectClass: 'organization', o: 'Other' })]), [undefined]);
    await listed.finish();
    await loader.finish();
    assert.deepEqual((await store.suffixes()).sort(), ['dc=example,dc=com', 'o=Other']);
    await store.close();
    await dir.remove();
  });
});
