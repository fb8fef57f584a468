/**
 * import-ldif's worker threads (src/ldif/import-workers.ts): the database they build is the one
 * the main thread alone builds, key for key and byte for byte; every problem names the same line
 * and reason, with and without --continue-on-error, when the file is cut into many parts; and the
 * main thread's heap does not grow with the file (200,000 users).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Level } from 'level';
import { formatLdifEntry, importLdif, makeEntries, type ImportOptions, type ImportProblem } from '../../../src/ldif/index.js';
import { lastBoundary, PartCutter } from '../../../src/ldif/import-chunks.js';
import { createRegistry } from '../../../src/password/index.js';
import { DirectoryStore, type Entry } from '../../../src/store/index.js';
import { tempDir } from '../../helpers/store.js';

const hash = { registry: createRegistry(), scheme: 'SSHA512' };
const FIXED = { entryUUID: '00000000-0000-4000-8000-000000000000', createTimestamp: '20260101000000Z', modifyTimestamp: '20260101000000Z', creatorsName: 'cn=import', modifiersName: 'cn=import' };

/** make-ldif's entries with fixed operational attributes (so two imports store the same bytes) and a pre-hashed password. */
function fixedEntry(entry: Entry, n: number): Entry {
  const operational = Object.entries(FIXED).map(([name, value]) => ({
    name, values: [Buffer.from(name === 'entryUUID' ? value.replace(/0{12}$/, String(n).padStart(12, '0')) : value)],
  }));
  const attributes = entry.attributes.map((attribute) => (attribute.name === 'userPassword'
    ? { name: attribute.name, values: [Buffer.from(`{SSHA512}${Buffer.alloc(72, n % 251).toString('base64')}`)] } : attribute));
  return { dn: entry.dn, attributes: [...attributes, ...operational] };
}

function directoryLdif(users: number, groups: number): string {
  let n = 0;
  return [...makeEntries({ users, groups, baseDn: 'dc=example,dc=com', seed: 'workers', password: 'x' })]
    .map((entry) => formatLdifEntry(fixedEntry(entry, n++))).join('\n');
}

/** The text in pieces of `size` characters: the worker path cuts parts at record boundaries inside them. */
function* pieces(text: string, size: number): Generator<string> {
  for (let at = 0; at < text.length; at += size) yield text.slice(at, at + size);
}

async function* fromIterable(chunks: Iterable<string>): AsyncGenerator<string> {
  yield* chunks;
}

interface Loaded {
  readonly imported: number;
  readonly skipped: number;
  readonly problems: string[];
  readonly thrown?: string;
  readonly keys: string[];
}

/** Every key and value of the database, the time of the load left out. */
async function rawDump(dir: string): Promise<string[]> {
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  const rows: string[] = [];
  for await (const [key, value] of db.iterator()) {
    if (key.toString() !== 'm\0lastBulkLoad') rows.push(`${key.toString('hex')} ${value.toString('hex')}`);
  }
  await db.close();
  return rows;
}

async function load(ldif: string, options: Partial<ImportOptions>, pieceSize = 4096): Promise<Loaded> {
  const temp = await tempDir('leveldap-import-workers-');
  try {
    const dir = join(temp.path, 'db');
    const store = await DirectoryStore.open(dir);
    const problems: string[] = [];
    let result = { imported: 0, skipped: 0 };
    let thrown: string | undefined;
    try {
      result = await importLdif(store, fromIterable(pieces(ldif, pieceSize)), {
        hash, continueOnError: false, actor: 'cn=import', ...options, onSkip: (problem: ImportProblem) => problems.push(problem.message),
      });
    } catch (error) {
      thrown = (error as Error).message;
    } finally {
      await store.close();
    }
    return { ...result, problems, thrown, keys: await rawDump(dir) };
  } finally {
    await temp.remove();
  }
}

const BAD_RECORDS = [
  'dn: uid=user.5,ou=People,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: user.5\ncn: dup\nsn: dup\n',
  'dn: uid=orphan,ou=Nowhere,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: orphan\ncn: o\nsn: o\n',
  'dn: uid=bad1,ou=People,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: bad1\ncn: b\nsn: b\nfooBar: x\n',
  'dn: uid=bad2,ou=People,dc=example,dc=com\nthis line is malformed\nuid: bad2\n',
  'dn: uid=bad3,ou=People,dc=example,dc=com\nuid: bad3\ncn: x\n',
  'dn: uid=bad4,ou=People,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: bad4\ncn: b\nsn: b\nuserPassword: {NOSUCH}abc\n',
  'dn: uid=bad5,ou=People,dc=example,dc=com\nchangetype: modify\nreplace: cn\ncn: x\n',
  'dn: UID=User.7, ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: User.7\ncn: a\nsn: b\n',
  'dn: uid=plain,ou=People,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: plain\ncn: p\nsn: p\nuserPassword: secret\n',
];

/** A directory with a bad record after every 40 good ones, so the problems fall in many parts. */
function ldifWithProblems(): string {
  const records = directoryLdif(600, 5).split('\n\n');
  const mixed: string[] = [];
  records.forEach((record, index) => {
    mixed.push(record.endsWith('\n') ? record : `${record}\n`);
    if (index > 2 && index % 40 === 0) mixed.push(BAD_RECORDS[(index / 40) % BAD_RECORDS.length]!);
  });
  return mixed.join('\n');
}

/** The stored keys, each entry record's userPassword hashed at import left out (its salt is random). */
function withoutPlainHash(keys: readonly string[]): string[] {
  const plain = Buffer.from('uid=plain').toString('hex');
  return keys.filter((row) => !row.startsWith(Buffer.from('e\0').toString('hex')) || !row.split(' ')[0]!.includes(plain));
}

describe('import with worker threads', () => {
  test('the database is the one the main thread alone builds, byte for byte', async () => {
    const ldif = directoryLdif(2000, 12);
    const alone = await load(ldif, { workers: 0 });
    const threaded = await load(ldif, { workers: 2 });
    assert.equal(alone.imported, 2000 + 12 + 3);
    assert.equal(threaded.imported, alone.imported);
    assert.ok(alone.keys.length > 30_000, `${alone.keys.length} keys`);
    assert.deepEqual(threaded.keys, alone.keys);
  });

  test('every problem names the same line and reason, skipping with continueOnError', async () => {
    const ldif = ldifWithProblems();
    const alone = await load(ldif, { workers: 0, continueOnError: true });
    const threaded = await load(ldif, { workers: 3, continueOnError: true }, 1000);
    assert.ok(alone.problems.length >= 14, alone.problems.join('\n'));
    assert.deepEqual(threaded.problems, alone.problems);
    assert.equal(threaded.imported, alone.imported);
    assert.equal(threaded.skipped, alone.skipped);
    assert.deepEqual(withoutPlainHash(threaded.keys), withoutPlainHash(alone.keys));
    const lines = ldif.split('\n');
    for (const problem of alone.problems) {
      const line = Number(/^line (\d+)/.exec(problem)![1]);
      assert.match(lines[line - 1]!, /^dn: |^this line is malformed$/, problem);
    }
    assert.ok(alone.problems.some((problem) => /: a change record in a file of content records/.test(problem)));
    assert.ok(alone.problems.some((problem) => /\(uid=user\.5,ou=People,dc=example,dc=com\): entry .* already exists/.test(problem)));
  });

  test('without continueOnError the import stops at the same problem, with what came before it stored', async () => {
    const ldif = ldifWithProblems();
    const alone = await load(ldif, { workers: 0 });
    const threaded = await load(ldif, { workers: 2 }, 1000);
    assert.match(alone.thrown ?? '', /^line \d+ \(uid=orphan,ou=Nowhere,dc=example,dc=com\): parent entry ou=Nowhere,dc=example,dc=com does not exist$/);
    assert.equal(threaded.thrown, alone.thrown);
    assert.deepEqual(threaded.keys, alone.keys);
  });

  test('without the schema check, the same entries are refused', async () => {
    const ldif = ldifWithProblems();
    const alone = await load(ldif, { workers: 0, continueOnError: true, schemaCheck: false });
    const threaded = await load(ldif, { workers: 2, continueOnError: true, schemaCheck: false }, 1000);
    assert.deepEqual(threaded.problems, alone.problems);
    assert.ok(!alone.problems.some((problem) => /fooBar/.test(problem)));
  });

  test('parts are cut after blank lines only, and number their lines on', () => {
    assert.equal(lastBoundary(Buffer.from('dn: a\nx: 1\n\ndn: b\n')), 12);
    assert.equal(lastBoundary(Buffer.from('dn: a\r\nx: 1\r\n\r\ndn: b\r\n')), 15);
    assert.equal(lastBoundary(Buffer.from('dn: a\nx: 1\n')), -1);
    const cutter = new PartCutter(1 << 20);
    const parts = [...cutter.cut('dn: a\nx: 1\n\ndn: b\nx: '), ...cutter.cut('2\n\ndn: c\n'), ...cutter.finish()];
    assert.deepEqual(parts.map((part) => [part.bytes.toString(), part.firstLine, part.startOfFile]), [
      ['dn: a\nx: 1\n\n', 1, true], ['dn: b\nx: 2\n\n', 4, false], ['dn: c\n', 7, false],
    ]);
  });
});

/** A minimal user, pre-hashed: the import's own work is what is measured. */
function userLdif(n: number): string {
  return `dn: uid=user.${n},ou=People,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: user.${n}\ncn: User ${n}\nsn: ${n}\n`
    + `mail: user.${n}@example.com\nuserPassword: {SSHA512}${Buffer.alloc(72, n % 251).toString('base64')}\ndescription: ${'x'.repeat(200)}\n\n`;
}

async function* manyUsers(count: number): AsyncGenerator<string> {
  yield 'dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\ndn: ou=People,dc=example,dc=com\nobjectClass: organizationalUnit\nou: People\n\n';
  const batch: string[] = [];
  for (let n = 0; n < count; n++) {
    batch.push(userLdif(n));
    if (batch.length === 500) yield batch.splice(0).join('');
  }
  yield batch.join('');
}

describe('import memory', () => {
  test('the heap stays bounded through 200,000 users (it does not grow with the file)', { timeout: 600_000 }, async (t) => {
    const temp = await tempDir('leveldap-import-heap-');
    try {
      const store = await DirectoryStore.open(join(temp.path, 'db'), { writeBufferMb: 64 });
      const samples: number[] = [];
      let count = 0;
      try {
        const result = await importLdif(store, manyUsers(200_000), {
          hash, continueOnError: false, workers: 2,
          onEntry: () => { if (++count % 10_000 === 0) samples.push(process.memoryUsage().heapUsed); },
        });
        assert.equal(result.imported, 200_002);
      } finally {
        await store.close();
      }
      const mb = samples.map((bytes) => Math.round(bytes / 2 ** 20));
      const firstHalf = Math.max(...mb.slice(0, 10));
      const secondHalf = Math.max(...mb.slice(10));
      t.diagnostic(`heap MB every 10,000 entries: ${mb.join(' ')}`);
      // The file is about 80 MB: a heap that kept entries or keys would pass 200 MB.
      assert.ok(Math.max(...mb) < 160, `heap MB every 10,000 entries: ${mb.join(' ')}`);
      assert.ok(secondHalf < firstHalf + 48, `heap MB every 10,000 entries: ${mb.join(' ')}`);
    } finally {
      await temp.remove();
    }
  });
});
