import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { readLdif, parseLdif, LdifError, type LdifRecord } from '../../../src/ldif/index.js';
import { SeededRandom } from '../../../src/ldif/random.js';

const text = (...lines: string[]): string => `${lines.join('\n')}\n`;
const value = (name: string, data: string | Buffer) => ({ name, value: typeof data === 'string' ? Buffer.from(data) : data });
const values = (name: string, ...data: string[]) => data.map((d) => value(name, d));

/** The 1-based number of the first line of `ldif` that starts with `prefix`. */
function lineOf(ldif: string, prefix: string): number {
  const index = ldif.split('\n').findIndex((line) => line.startsWith(prefix));
  assert.notEqual(index, -1, prefix);
  return index + 1;
}

async function collect(input: AsyncIterable<Buffer | string> | Iterable<Buffer | string>, maxRecordBytes?: number) {
  const records: LdifRecord[] = [];
  for await (const record of readLdif(input, { maxRecordBytes })) records.push(record);
  return records;
}

/** Repeatable randomness from the project's seeded generator: a number in [0, 1). */
function prng(seed: number): () => number {
  const random = new SeededRandom(String(seed));
  return () => random.next() / 0x1_0000_0000;
}

/** The bytes of `data` in chunks of 1-3 bytes. */
async function* smallChunks(data: Buffer, seed: number): AsyncGenerator<Buffer> {
  const random = prng(seed);
  for (let at = 0; at < data.length;) {
    const size = 1 + Math.floor(random() * 3);
    yield data.subarray(at, at + size);
    at += size;
  }
}

function assertLdifError(line: number, message: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof LdifError, `not an LdifError: ${String(error)}`);
    assert.equal(error.line, line, error.message);
    assert.ok(error.message.startsWith(`line ${line}: `), error.message);
    assert.match(error.message, message);
    return true;
  };
}

let tempDir = '';
before(async () => {
  tempDir = await mkdtemp(join(tmpdir(), 'leveldap-ldif-'));
});
after(async () => {
  await rm(tempDir, { recursive: true, force: true });
});

async function tempFile(name: string, data: Buffer): Promise<string> {
  const path = join(tempDir, name);
  await writeFile(path, data);
  return pathToFileURL(path).href;
}

// ---------------------------------------------------------------- RFC 2849 examples

const EXAMPLE_1 = text(
  'version: 1',
  'dn: cn=Barbara Jensen, ou=Product Development, dc=airius, dc=com',
  'objectclass: top',
  'objectclass: person',
  'objectclass: organizationalPerson',
  'cn: Barbara Jensen',
  'cn: Barbara J Jensen',
  'cn: Babs Jensen',
  'sn: Jensen',
  'uid: bjensen',
  'telephonenumber: +1 408 555 1212',
  'description: A big sailing fan.',
  '',
  'dn: cn=Bjorn Jensen, ou=Accounting, dc=airius, dc=com',
  'objectclass: top',
  'objectclass: person',
  'objectclass: organizationalPerson',
  'cn: Bjorn Jensen',
  'sn: Jensen',
  'telephonenumber: +1 408 555 1212',
);

const EXAMPLE_1_RECORDS: LdifRecord[] = [
  {
    kind: 'entry', dn: 'cn=Barbara Jensen, ou=Product Development, dc=airius, dc=com', line: 2, controls: [],
    attributes: [
      ...values('objectclass', 'top', 'person', 'organizationalPerson'),
      ...values('cn', 'Barbara Jensen', 'Barbara J Jensen', 'Babs Jensen'),
      value('sn', 'Jensen'), value('uid', 'bjensen'), value('telephonenumber', '+1 408 555 1212'),
      value('description', 'A big sailing fan.'),
    ],
  },
  {
    kind: 'entry', dn: 'cn=Bjorn Jensen, ou=Accounting, dc=airius, dc=com', line: 14, controls: [],
    attributes: [
      ...values('objectclass', 'top', 'person', 'organizationalPerson'),
      value('cn', 'Bjorn Jensen'), value('sn', 'Jensen'), value('telephonenumber', '+1 408 555 1212'),
    ],
  },
];

const EXAMPLE_2 = text(
  'version: 1',
  'dn:cn=Barbara Jensen, ou=Product Development, dc=airius, dc=com',
  'objectclass:top',
  'objectclass:person',
  'objectclass:organizationalPerson',
  'cn:Barbara Jensen',
  'cn:Barbara J Jensen',
  'cn:Babs Jensen',
  'sn:Jensen',
  'uid:bjensen',
  'telephonenumber:+1 408 555 1212',
  'description:Babs is a big sailing fan, and travels extensively in sea',
  ' rch of perfect sailing conditions.',
  'title:Product Manager, Rod and Reel Division',
);

// The RFC prints the continuation lines of this value without their leading space (a layout slip):
// as printed they would not be continuations at all. Here they are folded as the text intends.
const EXAMPLE_3 = text(
  'version: 1',
  'dn: cn=Gern Jensen, ou=Product Testing, dc=airius, dc=com',
  'objectclass: top',
  'objectclass: person',
  'objectclass: organizationalPerson',
  'cn: Gern Jensen',
  'cn: Gern O Jensen',
  'sn: Jensen',
  'uid: gernj',
  'telephonenumber: +1 408 555 1212',
  'description:: V2hhdCBhIGNhcmVmdWwgcmVhZGVyIHlvdSBhcmUhICBUaGlzIHZhbHVl',
  ' IGlzIGJhc2UtNjQtZW5jb2RlZCBiZWNhdXNlIGl0IGhhcyBhIGNvbnRyb2wgY2hhcmFjdG',
  ' VyIGluIGl0IChhIENSKS4NICBCeSB0aGUgd2F5LCB5b3Ugc2hvdWxkIHJlYWxseSBnZXQg',
  ' b3V0IG1vcmUu',
);

// As printed, except that the one comment the RFC breaks over two lines without "#" or a leading
// space is folded here (a continuation of a comment is part of the comment).
const EXAMPLE_4 = text(
  'version: 1',
  'dn:: b3U95Za25qWt6YOoLG89QWlyaXVz',
  '# dn:: ou=<JapaneseOU>,o=Airius',
  'objectclass: top',
  'objectclass: organizationalUnit',
  'ou:: 5Za25qWt6YOo',
  '# ou:: <JapaneseOU>',
  'ou;lang-ja:: 5Za25qWt6YOo',
  '# ou;lang-ja:: <JapaneseOU>',
  'ou;lang-ja;phonetic:: 44GI44GE44GO44KH44GG44G2',
  '# ou;lang-ja:: <JapaneseOU_in_phonetic_representation>',
  'ou;lang-en: Sales',
  'description: Japanese office',
  '',
  'dn:: dWlkPXJvZ2FzYXdhcmEsb3U95Za25qWt6YOoLG89QWlyaXVz',
  '# dn:: uid=<uid>,ou=<JapaneseOU>,o=Airius',
  'userpassword: {SHA}O3HSv1MusyL4kTjP+HKI5uxuNoM=',
  'objectclass: top',
  'objectclass: person',
  'objectclass: organizationalPerson',
  'objectclass: inetOrgPerson',
  'uid: rogasawara',
  'mail: rogasawara@airius.co.jp',
  'givenname;lang-ja:: 44Ot44OJ44OL44O8',
  '# givenname;lang-ja:: <JapaneseGivenname>',
  'sn;lang-ja:: 5bCP56yg5Y6f',
  '# sn;lang-ja:: <JapaneseSn>',
  'cn;lang-ja:: 5bCP56yg5Y6fIOODreODieODi+ODvA==',
  '# cn;lang-ja:: <JapaneseCn>',
  'title;lang-ja:: 5Za25qWt6YOoIOmDqOmVtw==',
  '# title;lang-ja:: <JapaneseTitle>',
  'preferredlanguage: ja',
  'givenname:: 44Ot44OJ44OL44O8',
  '# givenname:: <JapaneseGivenname>',
  'sn:: 5bCP56yg5Y6f',
  '# sn:: <JapaneseSn>',
  'cn:: 5bCP56yg5Y6fIOODreODieODi+ODvA==',
  '# cn:: <JapaneseCn>',
  'title:: 5Za25qWt6YOoIOmDqOmVtw==',
  '# title:: <JapaneseTitle>',
  'givenname;lang-ja;phonetic:: 44KN44Gp44Gr44O8',
  '# givenname;lang-ja;phonetic::',
  ' <JapaneseGivenname_in_phonetic_representation_kana>',
  'sn;lang-ja;phonetic:: 44GK44GM44GV44KP44KJ',
  '# sn;lang-ja;phonetic:: <JapaneseSn_in_phonetic_representation_kana>',
  'cn;lang-ja;phonetic:: 44GK44GM44GV44KP44KJIOOCjeOBqeOBq+ODvA==',
  '# cn;lang-ja;phonetic:: <JapaneseCn_in_phonetic_representation_kana>',
  'title;lang-ja;phonetic:: 44GI44GE44GO44KH44GG44G2IOOBtuOBoeOCh+OBhg==',
  '# title;lang-ja;phonetic::',
  '# <JapaneseTitle_in_phonetic_representation_kana>',
  'givenname;lang-en: Rodney',
  'sn;lang-en: Ogasawara',
  'cn;lang-en: Rodney Ogasawara',
  'title;lang-en: Sales, Director',
);

const EXAMPLE_4_RECORDS: LdifRecord[] = [
  {
    kind: 'entry', dn: 'ou=営業部,o=Airius', line: 2, controls: [],
    attributes: [
      ...values('objectclass', 'top', 'organizationalUnit'),
      value('ou', '営業部'), value('ou;lang-ja', '営業部'), value('ou;lang-ja;phonetic', 'えいぎょうぶ'),
      value('ou;lang-en', 'Sales'), value('description', 'Japanese office'),
    ],
  },
  {
    kind: 'entry', dn: 'uid=rogasawara,ou=営業部,o=Airius', line: 15, controls: [],
    attributes: [
      value('userpassword', '{SHA}O3HSv1MusyL4kTjP+HKI5uxuNoM='),
      ...values('objectclass', 'top', 'person', 'organizationalPerson', 'inetOrgPerson'),
      value('uid', 'rogasawara'), value('mail', 'rogasawara@airius.co.jp'),
      value('givenname;lang-ja', 'ロドニー'), value('sn;lang-ja', '小笠原'), value('cn;lang-ja', '小笠原 ロドニー'),
      value('title;lang-ja', '営業部 部長'), value('preferredlanguage', 'ja'),
      value('givenname', 'ロドニー'), value('sn', '小笠原'), value('cn', '小笠原 ロドニー'), value('title', '営業部 部長'),
      value('givenname;lang-ja;phonetic', 'ろどにー'), value('sn;lang-ja;phonetic', 'おがさわら'),
      value('cn;lang-ja;phonetic', 'おがさわら ろどにー'), value('title;lang-ja;phonetic', 'えいぎょうぶ ぶちょう'),
      value('givenname;lang-en', 'Rodney'), value('sn;lang-en', 'Ogasawara'), value('cn;lang-en', 'Rodney Ogasawara'),
      value('title;lang-en', 'Sales, Director'),
    ],
  },
];

// Example 6 with its file URLs pointing at temporary files. The RFC also prints a blank line after
// the first "-" of the Paula Jensen modify record; a blank line ends a record, so that text is not
// valid LDIF (the test below shows the error). Here the blank line is left out.
function example6(fionaPhoto: string): string {
  return text(
    'version: 1',
    '# Add a new entry',
    'dn: cn=Fiona Jensen, ou=Marketing, dc=airius, dc=com',
    'changetype: add',
    'objectclass: top',
    'objectclass: person',
    'objectclass: organizationalPerson',
    'cn: Fiona Jensen',
    'sn: Jensen',
    'uid: fiona',
    'telephonenumber: +1 408 555 1212',
    `jpegphoto:< ${fionaPhoto}`,
    '',
    '# Delete an existing entry',
    'dn: cn=Robert Jensen, ou=Marketing, dc=airius, dc=com',
    'changetype: delete',
    '',
    "# Modify an entry's relative distinguished name",
    'dn: cn=Paul Jensen, ou=Product Development, dc=airius, dc=com',
    'changetype: modrdn',
    'newrdn: cn=Paula Jensen',
    'deleteoldrdn: 1',
    '',
    '# Rename an entry and move all of its children to a new location in',
    '# the directory tree (only implemented by LDAPv3 servers).',
    'dn: ou=PD Accountants, ou=Product Development, dc=airius, dc=com',
    'changetype: modrdn',
    'newrdn: ou=Product Development Accountants',
    'deleteoldrdn: 0',
    'newsuperior: ou=Accounting, dc=airius, dc=com',
    '',
    '# Modify an entry: add an additional value to the postaladdress',
    '# attribute, completely delete the description attribute, replace',
    '# the telephonenumber attribute with two values, and delete a specific',
    '# value from the facsimiletelephonenumber attribute',
    'dn: cn=Paula Jensen, ou=Product Development, dc=airius, dc=com',
    'changetype: modify',
    'add: postaladdress',
    'postaladdress: 123 Anystreet $ Sunnyvale, CA $ 94086',
    '-',
    'delete: description',
    '-',
    'replace: telephonenumber',
    'telephonenumber: +1 408 555 1234',
    'telephonenumber: +1 408 555 5678',
    '-',
    'delete: facsimiletelephonenumber',
    'facsimiletelephonenumber: +1 408 555 9876',
    '-',
    '',
    '# Modify an entry: replace the postaladdress attribute with an empty',
    '# set of values (which will cause the attribute to be removed), and',
    '# delete the entire description attribute. Note that the first will',
    '# always succeed, while the second will only succeed if at least',
    '# one value for the description attribute is present.',
    'dn: cn=Ingrid Jensen, ou=Product Support, dc=airius, dc=com',
    'changetype: modify',
    'replace: postaladdress',
    '-',
    'delete: description',
    '-',
  );
}

const EXAMPLE_7 = text(
  'version: 1',
  '# Delete an entry. The operation will attach the LDAPv3',
  '# Tree Delete Control defined in [9]. The criticality',
  '# field is "true" and the controlValue field is',
  '# absent, as required by [9].',
  'dn: ou=Product Development, dc=airius, dc=com',
  'control: 1.2.840.113556.1.4.805 true',
  'changetype: delete',
);

describe('RFC 2849 examples', () => {
  test('example 1: two simple content records', async () => {
    assert.deepEqual(await parseLdif(EXAMPLE_1), EXAMPLE_1_RECORDS);
  });

  test('example 2: no space after the colons, a folded value', async () => {
    const [record, ...rest] = await parseLdif(EXAMPLE_2);
    assert.equal(rest.length, 0);
    assert.deepEqual(record, {
      kind: 'entry', dn: 'cn=Barbara Jensen, ou=Product Development, dc=airius, dc=com', line: 2, controls: [],
      attributes: [
        ...values('objectclass', 'top', 'person', 'organizationalPerson'),
        ...values('cn', 'Barbara Jensen', 'Barbara J Jensen', 'Babs Jensen'),
        value('sn', 'Jensen'), value('uid', 'bjensen'), value('telephonenumber', '+1 408 555 1212'),
        value('description', 'Babs is a big sailing fan, and travels extensively in search of perfect sailing conditions.'),
        value('title', 'Product Manager, Rod and Reel Division'),
      ],
    });
  });

  test('example 3: a folded base64 value with a CR in it', async () => {
    const [record] = await parseLdif(EXAMPLE_3);
    assert.deepEqual(record, {
      kind: 'entry', dn: 'cn=Gern Jensen, ou=Product Testing, dc=airius, dc=com', line: 2, controls: [],
      attributes: [
        ...values('objectclass', 'top', 'person', 'organizationalPerson'),
        ...values('cn', 'Gern Jensen', 'Gern O Jensen'),
        value('sn', 'Jensen'), value('uid', 'gernj'), value('telephonenumber', '+1 408 555 1212'),
        value('description', 'What a careful reader you are!  This value is base-64-encoded because it has a control '
          + 'character in it (a CR).\r  By the way, you should really get out more.'),
      ],
    });
  });

  test('example 4: base64 UTF-8 dns and values, attribute options, comments', async () => {
    assert.deepEqual(await parseLdif(EXAMPLE_4), EXAMPLE_4_RECORDS);
  });

  test('example 5: a value read from a file:// URL (percent-encoded path)', async () => {
    const photo = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x0a, 0x0d, 0x80]);
    const url = await tempFile('hjensen photo.jpg', photo);
    assert.match(url, /hjensen%20photo\.jpg$/);
    const ldif = text(
      'version: 1',
      'dn: cn=Horatio Jensen, ou=Product Testing, dc=airius, dc=com',
      'objectclass: top',
      'objectclass: person',
      'objectclass: organizationalPerson',
      'cn: Horatio Jensen',
      'cn: Horatio N Jensen',
      'sn: Jensen',
      'uid: hjensen',
      'telephonenumber: +1 408 555 1212',
      `jpegphoto:< ${url}`,
    );
    assert.deepEqual(await parseLdif(ldif), [{
      kind: 'entry', dn: 'cn=Horatio Jensen, ou=Product Testing, dc=airius, dc=com', line: 2, controls: [],
      attributes: [
        ...values('objectclass', 'top', 'person', 'organizationalPerson'),
        ...values('cn', 'Horatio Jensen', 'Horatio N Jensen'),
        value('sn', 'Jensen'), value('uid', 'hjensen'), value('telephonenumber', '+1 408 555 1212'),
        value('jpegphoto', photo),
      ],
    }]);
  });

  test('example 6: add, delete, modrdn, modrdn with newsuperior, modify', async () => {
    const photo = Buffer.from('\x00\x01\x02fiona\xff', 'latin1');
    const ldif = example6(await tempFile('fiona.jpg', photo));
    const expected: LdifRecord[] = [
      {
        kind: 'add', dn: 'cn=Fiona Jensen, ou=Marketing, dc=airius, dc=com', line: 3, controls: [],
        attributes: [
          ...values('objectclass', 'top', 'person', 'organizationalPerson'),
          value('cn', 'Fiona Jensen'), value('sn', 'Jensen'), value('uid', 'fiona'),
          value('telephonenumber', '+1 408 555 1212'), value('jpegphoto', photo),
        ],
      },
      { kind: 'delete', dn: 'cn=Robert Jensen, ou=Marketing, dc=airius, dc=com', line: lineOf(ldif, 'dn: cn=Robert'), controls: [] },
      {
        kind: 'modrdn', dn: 'cn=Paul Jensen, ou=Product Development, dc=airius, dc=com', line: lineOf(ldif, 'dn: cn=Paul'),
        controls: [], newRdn: 'cn=Paula Jensen', deleteOldRdn: true,
      },
      {
        kind: 'modrdn', dn: 'ou=PD Accountants, ou=Product Development, dc=airius, dc=com', line: lineOf(ldif, 'dn: ou=PD'),
        controls: [], newRdn: 'ou=Product Development Accountants', deleteOldRdn: false,
        newSuperior: 'ou=Accounting, dc=airius, dc=com',
      },
      {
        kind: 'modify', dn: 'cn=Paula Jensen, ou=Product Development, dc=airius, dc=com', line: lineOf(ldif, 'dn: cn=Paula'),
        controls: [],
        changes: [
          { op: 'add', attribute: 'postaladdress', values: [Buffer.from('123 Anystreet $ Sunnyvale, CA $ 94086')] },
          { op: 'delete', attribute: 'description', values: [] },
          { op: 'replace', attribute: 'telephonenumber', values: [Buffer.from('+1 408 555 1234'), Buffer.from('+1 408 555 5678')] },
          { op: 'delete', attribute: 'facsimiletelephonenumber', values: [Buffer.from('+1 408 555 9876')] },
        ],
      },
      {
        kind: 'modify', dn: 'cn=Ingrid Jensen, ou=Product Support, dc=airius, dc=com', line: lineOf(ldif, 'dn: cn=Ingrid'),
        controls: [],
        changes: [
          { op: 'replace', attribute: 'postaladdress', values: [] },
          { op: 'delete', attribute: 'description', values: [] },
        ],
      },
    ];
    assert.deepEqual(await parseLdif(ldif), expected);
  });

  test('example 6 as printed (blank line inside a modify record) is refused at the line after the blank', async () => {
    const ldif = example6(await tempFile('fiona.jpg', Buffer.from('x'))).replace('-\ndelete: description', '-\n\ndelete: description');
    await assert.rejects(parseLdif(ldif), assertLdifError(lineOf(ldif, 'delete: description'), /a record must start with "dn:", got "delete: description"/));
  });

  test('example 7: a change record with a control', async () => {
    assert.deepEqual(await parseLdif(EXAMPLE_7), [{
      kind: 'delete', dn: 'ou=Product Development, dc=airius, dc=com', line: 6,
      controls: [{ type: '1.2.840.113556.1.4.805', critical: true }],
    }]);
  });
});

// ---------------------------------------------------------------- more of the syntax

describe('syntax details', () => {
  test('moddn is modrdn; newrdn and newsuperior may be base64', async () => {
    const ldif = text(
      'dn: cn=a,dc=x', 'changetype: moddn',
      `newrdn:: ${Buffer.from('cn=é ').toString('base64')}`, 'deleteoldrdn: 1',
      `newsuperior:: ${Buffer.from('ou=営業部,dc=x').toString('base64')}`,
    );
    assert.deepEqual(await parseLdif(ldif), [{
      kind: 'modrdn', dn: 'cn=a,dc=x', line: 1, controls: [], newRdn: 'cn=é ', deleteOldRdn: true, newSuperior: 'ou=営業部,dc=x',
    }]);
  });

  test('controls: criticality, plain, base64 and file values', async () => {
    const url = await tempFile('control-value', Buffer.from([0x30, 0x03, 0x02, 0x01, 0x05]));
    const ldif = text(
      'dn: cn=a,dc=x',
      'control: 1.2.3',
      'control: 1.2.4 false',
      'control: 1.2.5 true: some value ',
      'control: 1.2.6:: AAEC',
      `control: 1.2.7 true:< ${url}`,
      'changetype: delete',
    );
    assert.deepEqual((await parseLdif(ldif))[0]!.controls, [
      { type: '1.2.3', critical: false },
      { type: '1.2.4', critical: false },
      { type: '1.2.5', critical: true, value: Buffer.from('some value ') },
      { type: '1.2.6', critical: false, value: Buffer.from([0, 1, 2]) },
      { type: '1.2.7', critical: true, value: Buffer.from([0x30, 0x03, 0x02, 0x01, 0x05]) },
    ]);
  });

  test('modify: increment, attribute options, base64 values, a missing final "-"', async () => {
    const ldif = text(
      'dn: cn=a,dc=x', 'changetype: modify',
      'increment: uidNumber', 'uidNumber: 1', '-',
      'add: cn;lang-en', 'CN;LANG-EN:: AP8=', 'cn;lang-en: b',
    );
    assert.deepEqual((await parseLdif(ldif))[0], {
      kind: 'modify', dn: 'cn=a,dc=x', line: 1, controls: [],
      changes: [
        { op: 'increment', attribute: 'uidNumber', values: [Buffer.from('1')] },
        { op: 'add', attribute: 'cn;lang-en', values: [Buffer.from([0, 0xff]), Buffer.from('b')] },
      ],
    });
  });

  test('keywords are case-insensitive; names keep the case they were written in', async () => {
    const ldif = text('DN: cn=a,dc=x', 'ChangeType: Add', 'objectClass: top', '', 'Dn: cn=b,dc=x', 'changetype: DELETE');
    const records = await parseLdif(ldif);
    assert.deepEqual(records.map((r) => r.kind), ['add', 'delete']);
    assert.deepEqual(records[0]!.kind === 'add' && records[0]!.attributes, [value('objectClass', 'top')]);
  });

  test('values: FILL removed, trailing spaces kept, empty values, spaces after base64 ignored', async () => {
    const ldif = text('dn:    cn=a,dc=x', 'a:   x  ', 'b:', 'c:   ', 'd::', 'e:: eHk=   ', 'f:x:y<z', '2.5.4.3: oid');
    assert.deepEqual((await parseLdif(ldif))[0], {
      kind: 'entry', dn: 'cn=a,dc=x', line: 1, controls: [],
      attributes: [value('a', 'x  '), value('b', ''), value('c', ''), value('d', ''), value('e', 'xy'), value('f', 'x:y<z'), value('2.5.4.3', 'oid')],
    });
  });

  test('plain values may hold raw UTF-8 and other bytes, kept byte for byte', async () => {
    const bytes = Buffer.concat([Buffer.from('dn: cn=a\ncn: '), Buffer.from([0xc3, 0xa9, 0xff, 0x01]), Buffer.from('\n')]);
    const [record] = await collect([bytes]);
    assert.deepEqual(record!.kind === 'entry' && record!.attributes, [value('cn', Buffer.from([0xc3, 0xa9, 0xff, 0x01]))]);
  });

  test('version line: optional, alone in its own group, or followed directly by the first record', async () => {
    const body = text('dn: cn=a', 'cn: a');
    for (const ldif of [body, `version: 1\n${body}`, `version: 1\n\n\n${body}`, `# c\n\nversion: 1\n${body}`]) {
      const records = await parseLdif(ldif);
      assert.equal(records.length, 1, ldif);
      assert.equal(records[0]!.dn, 'cn=a');
    }
    assert.deepEqual(await parseLdif('version: 1\n'), []);
    assert.deepEqual(await parseLdif(''), []);
    assert.deepEqual(await parseLdif('\n\n# only a comment\n continued\n\n'), []);
  });

  test('several blank lines, comments inside a record, a folded comment, no final newline, a UTF-8 BOM', async () => {
    const ldif = '\uFEFFversion: 1\n\n\n# comment\n dn: not a dn, a folded comment\ndn: cn=a\n# inside\ncn: a\n\n\n\ndn: cn=b\ncn: b';
    const records = await parseLdif(ldif);
    assert.deepEqual(records.map((r) => [r.dn, r.line]), [['cn=a', 6], ['cn=b', 12]]);
  });

  test('a folded line may split a dn or a name; exactly one leading space is removed', async () => {
    const ldif = text('dn: cn=a,', ' dc=x', 'descr', ' iption: x', '  two spaces');
    assert.deepEqual((await parseLdif(ldif))[0], {
      kind: 'entry', dn: 'cn=a,dc=x', line: 1, controls: [], attributes: [value('description', 'x two spaces')],
    });
  });

  test('CRLF line endings read like LF ones, including folded lines', async () => {
    assert.deepEqual(await parseLdif(EXAMPLE_1.replaceAll('\n', '\r\n')), EXAMPLE_1_RECORDS);
    assert.deepEqual(await parseLdif(EXAMPLE_3.replaceAll('\n', '\r\n')), await parseLdif(EXAMPLE_3));
    const mixed = EXAMPLE_4.split('\n').map((line, i) => (i % 2 ? `${line}\r` : line)).join('\n');
    assert.deepEqual(await parseLdif(mixed), EXAMPLE_4_RECORDS);
  });
});

// ---------------------------------------------------------------- chunk boundaries

describe('chunk boundaries', () => {
  const utf8Ldif = text(
    'dn: ou=営業部,o=Airius',
    'ou: 営業部 — 🔑 ü',
    'description: ロドニー小笠原 ロドニー小笠原 ロドニー小笠原 ロドニー小笠原 ロド',
    ' ニー小笠原',
    'cn:: 5bCP56yg5Y6fIOODreODieODi+ODvA==',
    '',
    'dn: cn=é,o=x',
    'cn: é',
  );

  test('bytes in chunks of 1-3, splitting UTF-8 characters and CRLFs, read the same as one chunk', async () => {
    const whole = await parseLdif(utf8Ldif);
    assert.equal(whole[0]!.kind === 'entry' && whole[0]!.attributes[0]!.value.toString(), 'ou: 営業部 — 🔑 ü'.slice(4));
    for (const seed of [1, 2, 3, 4, 5]) {
      assert.deepEqual(await collect(smallChunks(Buffer.from(utf8Ldif), seed)), whole, `seed ${seed}`);
      const crlf = Buffer.from(utf8Ldif.replaceAll('\n', '\r\n'));
      assert.deepEqual(await collect(smallChunks(crlf, seed)), whole, `CRLF, seed ${seed}`);
    }
  });

  test('string chunks of one UTF-16 unit each (surrogate pairs split) read the same', async () => {
    const whole = await parseLdif(utf8Ldif);
    assert.deepEqual(await collect(utf8Ldif.split('')), whole);
  });

  test('Uint8Array chunks are accepted', async () => {
    const bytes = new Uint8Array(Buffer.from(utf8Ldif));
    assert.deepEqual(await collect([bytes.subarray(0, 10), bytes.subarray(10)] as unknown as Buffer[]), await parseLdif(utf8Ldif));
  });
});

// ---------------------------------------------------------------- errors

describe('errors name their line', () => {
  const CASES: [string, string, number, RegExp][] = [
    ['a record not starting with dn:', text('version: 1', 'cn: x'), 2, /a record must start with "dn:", got "cn: x"/],
    ['a value line without a colon', text('dn: cn=a', 'cn: a', 'no colon here'), 3, /expected "attribute: value", got "no colon here"/],
    ['a name that is not an attribute description', text('dn: cn=a', 'bad name: a'), 2, /expected "attribute: value".*not an attribute description/],
    ['bad base64 characters', text('dn: cn=a', 'cn:: ab$d'), 2, /^line 2: invalid base64 value$/],
    ['bad base64 length', text('dn: cn=a', 'cn:: abc'), 2, /^line 2: invalid base64 value$/],
    ['a bad base64 dn', text('dn:: %%%%'), 1, /^line 1: invalid base64 value$/],
    ['a base64 dn that is not UTF-8', text('dn:: /w==', 'cn: a'), 1, /"dn:" value is not valid UTF-8/],
    ['a dn given as a URL', text('dn:< file:///etc/hostname', 'cn: a'), 1, /"dn:" cannot take a URL value/],
    ['an unknown changetype', text('dn: cn=a', 'changetype: frob'), 2, /^line 2: changetype "frob" is not add, delete, modify, modrdn or moddn$/],
    ['a continuation line first in the file', text(' dn: cn=a', 'cn: a'), 1, /^line 1: a continuation line cannot start a record$/],
    ['a continuation line after a blank line', text('dn: cn=a', 'cn: a', '', ' more'), 4, /^line 4: a continuation line cannot start a record$/],
    ['a non-file URL', text('dn: cn=a', 'jpegphoto:< http://example.com/a.jpg'), 2, /^line 2: only file:\/\/ URLs are supported/],
    ['a missing file', text('dn: cn=a', 'jpegphoto:< file:///nonexistent/leveldap/x'), 2, /^line 2: cannot read file:\/\/\/nonexistent\/leveldap\/x: ENOENT$/],
    ['a file URL on another host', text('dn: cn=a', 'jpegphoto:< file://example.com/x'), 2, /^line 2: invalid file URL/],
    ['a change record after content records', text('dn: cn=a', 'cn: a', '', 'dn: cn=b', 'changetype: delete'), 4, /a change record in a file of content records/],
    ['a content record after change records', text('dn: cn=a', 'changetype: delete', '', '# x', 'dn: cn=b', 'cn: b'), 5, /a content record in a file of change records/],
    ['version 2', text('version: 2', 'dn: cn=a', 'cn: a'), 1, /unsupported LDIF version "2"/],
    ['a content record without attributes', text('dn: cn=a'), 1, /the record has no "attribute: value" lines/],
    ['an add record without attributes', text('dn: cn=a', 'changetype: add'), 2, /the record has no "attribute: value" lines/],
    ['"-" in a content record', text('dn: cn=a', 'cn: a', '-'), 3, /expected "attribute: value", got "-"/],
    ['a delete record with more lines', text('dn: cn=a', 'changetype: delete', 'cn: a'), 3, /a delete record takes no further lines/],
    ['a modify section naming another attribute', text('dn: cn=a', 'changetype: modify', 'add: cn', 'sn: x', '-'), 4, /expected "-" or a "cn" value in the "add: cn" section, got "sn"/],
    ['a modify section without an operation', text('dn: cn=a', 'changetype: modify', 'frob: cn', '-'), 3, /expected "add:", "delete:", "replace:" or "increment:", got "frob"/],
    ['a missing "-" between modify sections', text('dn: cn=a', 'changetype: modify', 'add: cn', 'cn: x', 'delete: sn', '-'), 5, /expected "-" or a "cn" value/],
    ['increment with two values', text('dn: cn=a', 'changetype: modify', 'increment: n', 'n: 1', 'n: 2', '-'), 3, /needs exactly one value, got 2/],
    ['modrdn without newrdn', text('dn: cn=a', 'changetype: modrdn', 'deleteoldrdn: 1'), 3, /expected "newrdn:", got "deleteoldrdn"/],
    ['modrdn ending early', text('dn: cn=a', 'changetype: modrdn', 'newrdn: cn=b'), 3, /expected a "deleteoldrdn:" line, but the record ends/],
    ['deleteoldrdn other than 0 or 1', text('dn: cn=a', 'changetype: modrdn', 'newrdn: cn=b', 'deleteoldrdn: yes'), 4, /deleteoldrdn must be 0 or 1, got "yes"/],
    ['modrdn with an extra line', text('dn: cn=a', 'changetype: modrdn', 'newrdn: cn=b', 'deleteoldrdn: 1', 'cn: b'), 5, /a modrdn record takes no further lines/],
    ['a control without changetype', text('dn: cn=a', 'control: 1.2.3', 'cn: a'), 2, /"control:" lines must be followed by "changetype:"/],
    ['a malformed control', text('dn: cn=a', 'control: 1.2.3 maybe', 'changetype: delete'), 2, /expected "control: OID \[true\|false\] \[value\]"/],
    ['line numbers after CRLF, comments and folding', 'version: 1\r\n# c\r\n  more\r\ndn: cn=a,\r\n dc=x\r\ncn: a\r\nbad\r\n', 7, /got "bad"/],
  ];

  for (const [what, ldif, line, message] of CASES) {
    test(what, async () => {
      await assert.rejects(parseLdif(ldif), assertLdifError(line, message));
    });
  }

  test('records before the error are delivered first', async () => {
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const record of readLdif([text('dn: cn=a', 'cn: a', '', 'dn: cn=b', 'oops')])) seen.push(record.dn);
    }, assertLdifError(5, /oops/));
    assert.deepEqual(seen, ['cn=a']);
  });
});

// ---------------------------------------------------------------- size and memory

describe('size limit and streaming', () => {
  test('a record above maxRecordBytes is refused, naming the line it starts on', async () => {
    const small = text('dn: cn=a', 'cn: a');
    const big = text('dn: cn=b', ...Array.from({ length: 20 }, (_, i) => `description: value number ${i}`));
    const records = await collect([small], 100);
    assert.equal(records.length, 1);
    await assert.rejects(collect([`${small}\n${big}`], 100), assertLdifError(4, /record is larger than 100 bytes/));
  });

  test('one endless line fails before it is read whole', async () => {
    let chunks = 0;
    async function* endless(): AsyncGenerator<Buffer> {
      yield Buffer.from('dn: cn=a\ndescription: ');
      const block = Buffer.alloc(1024, 'x');
      for (;;) {
        chunks++;
        yield block;
      }
    }
    await assert.rejects(collect(endless(), 64 * 1024), assertLdifError(1, /record is larger than 65536 bytes/));
    assert.ok(chunks <= 65, `read ${chunks} chunks of 1 KiB`);
  });

  test('a file:// value larger than maxRecordBytes is refused', async () => {
    const url = await tempFile('big.bin', Buffer.alloc(2000));
    await assert.rejects(collect([text('dn: cn=a', `photo:< ${url}`)], 1000), assertLdifError(2, /larger than 1000 bytes/));
  });

  test('200,000 generated entries stream through with modest heap growth', async () => {
    v8.setFlagsFromString('--expose-gc');
    let gc: (() => void) | undefined;
    try {
      gc = vm.runInNewContext('gc') as () => void;
    } catch {
      gc = undefined; // without gc() the samples include garbage, which only makes the bound stricter
    }
    const heap = (): number => {
      gc?.();
      return process.memoryUsage().heapUsed;
    };
    const count = 200_000;
    const entry = (i: number): string => `\ndn: uid=user${i},ou=People,dc=example,dc=com\nobjectClass: inetOrgPerson\n`
      + `uid: user${i}\ncn: User ${i}\nsn: ${i}\nuserPassword:: e1NTSEF9eHh4eHh4eHh4eHh4\n`;
    async function* generate(): AsyncGenerator<string> {
      yield 'version: 1\n';
      for (let i = 0; i < count; i += 20) {
        yield Array.from({ length: 20 }, (_, k) => entry(i + k)).join(''); // 20 entries a chunk, made on demand
      }
    }
    const before = heap();
    let peak = before;
    let seen = 0;
    for await (const record of readLdif(generate())) {
      seen++;
      if (record.dn !== `uid=user${seen - 1},ou=People,dc=example,dc=com`) assert.fail(`record ${seen}: ${record.dn}`);
      if (seen % 50_000 === 0) peak = Math.max(peak, heap());
    }
    peak = Math.max(peak, heap());
    assert.equal(seen, count);
    assert.ok(peak - before < 50 * 1024 * 1024, `heap grew by ${Math.round((peak - before) / 1024 / 1024)} MB`);
  });
});

describe('readLdif with onError (import --continue-on-error)', () => {
  test('a malformed record is reported with its line and the next records are still read', async () => {
    const text = [
      'dn: cn=a,o=x', 'cn: a', '',
      'dn: cn=b,o=x', 'cn:: ***not base64***', '',
      'dn: cn=c,o=x', 'no colon here', '',
      'dn: cn=d,o=x', 'cn: d', '',
    ].join('\n');
    const errors: LdifError[] = [];
    const dns: string[] = [];
    for await (const record of readLdif([text], { onError: (error) => errors.push(error) })) dns.push(record.dn);
    assert.deepEqual(dns, ['cn=a,o=x', 'cn=d,o=x']);
    assert.deepEqual(errors.map((error) => error.line), [5, 8]);
  });
});

test('a stray continuation line is reported with onError and the records around it are kept', async () => {
  const text = ['dn: cn=a,o=x', 'cn: a', '', ' stray continuation', 'more: x', '', 'dn: cn=b,o=x', 'cn: b', ''].join('\n');
  const errors: LdifError[] = [];
  const dns: string[] = [];
  for await (const record of readLdif([text], { onError: (error) => errors.push(error) })) dns.push(record.dn);
  assert.deepEqual(dns, ['cn=a,o=x', 'cn=b,o=x']);
  assert.deepEqual(errors.map((error) => error.line), [4]);
});
