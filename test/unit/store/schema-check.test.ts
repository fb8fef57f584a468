/**
 * The schema check (src/store/schema/check.ts) keeps, per registry, what each attribute
 * description and each list of object classes means. What it answers must not depend on what it
 * checked before: an entry of a kept class list still fails on what it lacks or adds, a class
 * list that fails its structure check fails every time, and two registries that define the same
 * class differently each answer by their own definition, in either order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSchema, type Entry } from '../../../src/store/index.js';
import { checkSchema } from '../../../src/store/schema/check.js';
import type { SchemaRegistry } from '../../../src/store/schema/registry.js';

const entry = (attributes: Record<string, string[]>): Entry => ({
  dn: 'uid=a,dc=example,dc=com',
  attributes: Object.entries(attributes).map(([name, values]) => ({ name, values: values.map((value) => Buffer.from(value)) })),
});

const PERSON = ['top', 'person', 'organizationalPerson', 'inetOrgPerson'];
const cases: [string, Entry, RegExp | string][] = [
  ['whole', entry({ objectClass: PERSON, uid: ['a'], cn: ['A'], sn: ['B'] }), 'inetOrgPerson'],
  ['a MUST missing', entry({ objectClass: PERSON, uid: ['a'], cn: ['A'] }), /object class 'person' requires attribute 'sn'/],
  ['a type no class allows', entry({ objectClass: PERSON, uid: ['a'], cn: ['A'], sn: ['B'], uidNumber: ['1'] }), /attribute 'uidNumber' not allowed/],
  ['extensibleObject', entry({ objectClass: [...PERSON, 'extensibleObject'], uid: ['a'], cn: ['A'], sn: ['B'], uidNumber: ['1'] }), 'inetOrgPerson'],
  ['two structural chains', entry({ objectClass: ['top', 'person', 'organization'], cn: ['A'], sn: ['B'], o: ['O'] }), /invalid structural object class chain/],
  ['an unknown class', entry({ objectClass: ['top', 'person', 'noSuchClass'], cn: ['A'], sn: ['B'] }), /objectClass: value #2 invalid per syntax/],
  ['an operational type', entry({ objectClass: PERSON, uid: ['a'], cn: ['A'], sn: ['B'], createTimestamp: ['20260101000000Z'] }), 'inetOrgPerson'],
  ['a type by another name', entry({ objectClass: PERSON, UID: ['a'], commonName: ['A'], '2.5.4.4': ['B'] }), 'inetOrgPerson'],
  ['no objectClass', entry({ cn: ['A'] }), /no objectClass attribute/],
];

function answer(registry: SchemaRegistry, checked: Entry): string {
  try {
    return checkSchema(checked, registry);
  } catch (error) {
    return (error as Error).message;
  }
}

test('the same answers the first time and after every other shape was checked, in either order', () => {
  const registry = buildSchema();
  const first = cases.map(([, checked]) => answer(registry, checked));
  cases.forEach(([name, , expected], n) => assert.ok(typeof expected === 'string' ? first[n] === expected : expected.test(first[n]!), `${name}: ${first[n]}`));
  for (let round = 0; round < 3; round++) {
    const order = round % 2 === 0 ? [...cases.keys()].reverse() : [...cases.keys()];
    for (const n of order) assert.equal(answer(registry, cases[n]![1]), first[n], cases[n]![0]);
  }
});

test('two registries defining one class differently answer by their own definitions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'leveldap-schema-check-'));
  try {
    const file = (name: string, may: string): string => {
      const path = join(dir, name);
      writeFileSync(path, `objectclass ( 1.3.6.1.4.1.99999.2.1 NAME 'site' SUP top STRUCTURAL MUST cn MAY ${may} )\n`);
      return path;
    };
    const withMail = buildSchema([file('a.schema', 'mail')]);
    const withPhone = buildSchema([file('b.schema', 'telephoneNumber')]);
    const mail = entry({ objectClass: ['top', 'site'], cn: ['A'], mail: ['a@example.com'] });
    for (let round = 0; round < 2; round++) {
      assert.equal(answer(withMail, mail), 'site');
      assert.match(answer(withPhone, mail), /attribute 'mail' not allowed/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
