/**
 * What a rewrite of an entry changes in the indexes and in the schema check (src/store/indexes.ts,
 * src/store/schema/check.ts): a modify reads only the types it touched, and its result is the one
 * comparing every index key of both versions would give; the values it carries over as stored are
 * not checked against their syntax again, the values it writes are.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { currentSchema, dnKey, parseDn, type Entry } from '../../../src/store/index.js';
import { indexChanges, indexKeys } from '../../../src/store/indexes.js';
import { applyModifications, type Modification } from '../../../src/store/modification.js';
import { checkSchema } from '../../../src/store/schema/check.js';
import { person } from '../../helpers/store.js';

const INDEXED = new Set(['objectclass', 'uid', 'cn', 'sn', 'mail']);
const KEY = dnKey(parseDn(person(1).dn));
const change = (op: Modification['op'], attribute: string, ...values: string[]): Modification => ({ op, attribute, values: values.map((value) => Buffer.from(value)) });

/** The index changes found by comparing every index key of both versions. */
function allKeysCompared(before: Entry, after: Entry, oldKey = KEY, newKey = KEY) {
  const old = new Set(indexKeys(before, oldKey, INDEXED));
  const fresh = new Set(indexKeys(after, newKey, INDEXED));
  return [...[...old].filter((key) => !fresh.has(key)).map((key) => ({ type: 'del', key })),
    ...[...fresh].filter((key) => !old.has(key)).map((key) => ({ type: 'put', key, value: Buffer.alloc(0) }))];
}

const sorted = (ops: readonly { key: string }[]) => [...ops].sort((a, b) => a.key.localeCompare(b.key));

test('index changes: a change of an attribute that is not indexed changes no index key', () => {
  const before = person(1);
  const after = applyModifications(before, [change('replace', 'description', 'new')]);
  assert.deepEqual(indexChanges(INDEXED, KEY, before, KEY, after), []);
});

test('index changes: each kind of change gives what comparing every key of both versions gives', () => {
  const before = person(1, { 'cn;lang-de': 'Shared', description: 'x' });
  const cases: Modification[][] = [
    [change('replace', 'mail', 'other@example.com')],
    [change('add', 'cn', 'Second Name'), change('delete', 'sn')],
    [change('replace', 'commonName', 'Alias Spelled')],
    [change('add', 'cn', 'Shared'), change('delete', 'cn;lang-de')],
    [change('delete', 'cn;lang-de', 'Shared')],
    [change('add', 'objectClass', 'extensibleObject'), change('replace', 'description', 'y')],
  ];
  for (const modifications of cases) {
    const after = applyModifications(before, modifications);
    assert.deepEqual(sorted(indexChanges(INDEXED, KEY, before, KEY, after)), sorted(allKeysCompared(before, after)), JSON.stringify(modifications.map((m) => [m.op, m.attribute])));
  }
});

test('index changes: two versions decoded apart (a node applying PostgreSQL\'s rows: no attribute shared) give what comparing every key gives', () => {
  const apart = (entry: Entry): Entry => ({ dn: entry.dn, attributes: entry.attributes.map((attribute) => ({ name: attribute.name, values: attribute.values.map((value) => Buffer.from(value)) })) });
  const before = person(1, { 'cn;lang-de': 'Shared', description: 'x' });
  const cases: Modification[][] = [
    [change('replace', 'description', 'new')],
    [change('replace', 'mail', 'other@example.com')],
    [change('add', 'cn', 'Second Name'), change('delete', 'sn')],
    [change('replace', 'cn', 'USER 1')],
    [change('add', 'cn', 'Shared'), change('delete', 'cn;lang-de')],
    [change('add', 'objectClass', 'extensibleObject')],
  ];
  for (const modifications of cases) {
    const after = apart(applyModifications(before, modifications));
    assert.deepEqual(sorted(indexChanges(INDEXED, KEY, apart(before), KEY, after)), sorted(allKeysCompared(before, after)), JSON.stringify(modifications.map((m) => [m.op, m.attribute])));
  }
  assert.deepEqual(indexChanges(INDEXED, KEY, apart(before), KEY, apart(before)), []);
});

test('index changes: a value kept by another attribute of the same type keeps its key', () => {
  const before = person(1, { 'cn;lang-de': 'User 1' });
  const after = applyModifications(before, [change('delete', 'cn;lang-de')]);
  assert.deepEqual(indexChanges(INDEXED, KEY, before, KEY, after), []);
});

test('index changes: a renamed entry moves every index key, carried attributes included', () => {
  const before = person(1);
  const newKey = dnKey(parseDn('uid=user.9,ou=People,dc=example,dc=com'));
  const ops = indexChanges(INDEXED, KEY, before, newKey, before);
  assert.equal(ops.length, 2 * indexKeys(before, KEY, INDEXED).length);
  assert.deepEqual(sorted(ops), sorted(allKeysCompared(before, before, KEY, newKey)));
});

test('schema check of a modify: values carried over as stored are not checked again, values written are', () => {
  const registry = currentSchema();
  // A value the syntax refuses, stored before (an import without the check, or an older schema).
  const before = person(1, { telephoneNumber: '' });
  assert.throws(() => checkSchema(before, registry), /telephoneNumber: value #0 invalid per syntax/);
  const after = applyModifications(before, [change('replace', 'description', 'fine')]);
  assert.equal(checkSchema(after, registry, { structural: 'inetOrgPerson', stored: new Set(before.attributes) }), 'inetOrgPerson');
  const written = applyModifications(before, [change('replace', 'telephoneNumber', '')]);
  assert.throws(() => checkSchema(written, registry, { structural: 'inetOrgPerson', stored: new Set(before.attributes) }), /telephoneNumber: value #0 invalid per syntax/);
  // The structure is still the whole entry's.
  const missing = applyModifications(before, [change('delete', 'sn')]);
  assert.throws(() => checkSchema(missing, registry, { structural: 'inetOrgPerson', stored: new Set(before.attributes) }), /requires attribute 'sn'/);
});
