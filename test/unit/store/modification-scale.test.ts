/**
 * applyModifications over many changes (src/store/modification.ts with working-entry.ts): linear
 * in the changes (10,000 one-value adds, then 10,000 one-value deletes, well under a second),
 * the same entry as applying them one at a time (a touched attribute moves to the end, an emptied
 * one leaves and comes back under the name that re-adds it), the same errors across changes, and
 * the entry given is never changed.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { applyModifications, type Modification } from '../../../src/store/modification.js';
import { DirectoryError, type Entry } from '../../../src/store/index.js';
import { entry, person } from '../../helpers/store.js';

const names = (result: Entry) => result.attributes.map((attribute) => attribute.name);
const texts = (result: Entry, name: string) => result.attributes.find((attribute) => attribute.name === name)?.values.map(String);
const change = (op: Modification['op'], attribute: string, ...values: string[]): Modification => ({ op, attribute, values: values.map((value) => Buffer.from(value)) });
const refusedWith = (code: string, message: string) => (error: unknown) =>
  error instanceof DirectoryError && error.codeName === code && error.message === message;

describe('applyModifications: many changes', () => {
  test('10,000 one-value adds then 10,000 one-value deletes of the same values: linear, and the entry is back', () => {
    const before = person(1);
    const values = Array.from({ length: 10_000 }, (_, i) => `Note ${i}`);
    const adds = values.map((value) => change('add', 'description', value));
    const deletes = values.map((value) => change('delete', 'description', value.toLowerCase()));
    let started = performance.now();
    const added = applyModifications(before, adds);
    const addMillis = performance.now() - started;
    assert.equal(texts(added, 'description')?.length, 10_000);
    assert.deepEqual(texts(added, 'description')?.slice(0, 2), ['Note 0', 'Note 1'], 'in the order added');
    started = performance.now();
    const both = applyModifications(before, [...adds, ...deletes]);
    const bothMillis = performance.now() - started;
    assert.equal(texts(both, 'description'), undefined, 'every value deleted (by the equality rule): the attribute is gone');
    assert.deepEqual(names(both), names(before));
    assert.ok(addMillis < 1000 && bothMillis < 1000, `adds ${addMillis.toFixed(0)} ms, adds and deletes ${bothMillis.toFixed(0)} ms`);
  });

  test('the attributes come out as applying one change at a time gives: touched ones last, emptied ones gone, re-added under the new name', () => {
    const before = entry('uid=a,dc=example,dc=com', { objectClass: ['top', 'person'], uid: 'a', cn: 'A', sn: ['S1', 'S2'], mail: 'a@example.com' });
    const result = applyModifications(before, [
      change('add', 'cn', 'Another'),
      change('delete', 'sn', 'S1'),
      change('delete', 'SN', 'S2'),
      change('add', 'SN', 'Back'),
      change('replace', 'MAIL', 'b@example.com'),
      change('replace', 'telephoneNumber'),
    ]);
    assert.deepEqual(names(result), ['objectClass', 'uid', 'cn', 'SN', 'mail']);
    assert.deepEqual(texts(result, 'cn'), ['A', 'Another']);
    assert.deepEqual(texts(result, 'SN'), ['Back']);
    assert.deepEqual(texts(result, 'mail'), ['b@example.com'], 'a replaced attribute keeps its stored name');
    assert.deepEqual(texts(before, 'sn'), ['S1', 'S2'], 'the entry given is not changed');
    assert.deepEqual(texts(before, 'cn'), ['A']);
  });

  test('errors across changes: a value added by an earlier change exists, a deleted one does not', () => {
    const before = person(2);
    assert.throws(() => applyModifications(before, [change('add', 'description', 'x'), change('add', 'description', 'y', 'X')]),
      refusedWith('attributeOrValueExists', 'modify/add: description: value #1 already exists'));
    assert.throws(() => applyModifications(before, [change('add', 'description', 'x'), change('delete', 'description', 'x'), change('delete', 'description', 'x')]),
      refusedWith('noSuchAttribute', 'modify/delete: description: no such attribute'));
    assert.throws(() => applyModifications(before, [change('add', 'description', 'x', 'y'), change('delete', 'description', 'x'), change('delete', 'description', 'x')]),
      refusedWith('noSuchAttribute', 'modify/delete: description: no such value'));
    const incremented = applyModifications(person(3, { uidNumber: ['5', '7'] }), [change('add', 'uidNumber', '9'), change('increment', 'uidNumber', '1'), change('increment', 'uidNumber', '-2')]);
    assert.deepEqual(texts(incremented, 'uidNumber'), ['4', '6', '8']);
  });
});
