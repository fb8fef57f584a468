/** The schema a database's keys were built with (src/store/key-types.ts): what counts as a change. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyTypeChanges, keyTypesChanged, keyTypesOf, mergedKeyTypes, type KeyTypesHolder } from '../../../src/store/key-types.js';
import { buildSchema } from '../../../src/store/schema/installed.js';
import type { BatchOp } from '../../../src/store/batch-ops.js';

test('key types: every name and OID of every type, lower-cased, to its canonical key and equality rule', () => {
  const types = keyTypesOf(buildSchema([]));
  assert.equal(types['cn'], 'cn caseIgnore');
  assert.equal(types['commonname'], 'cn caseIgnore');
  assert.equal(types['2.5.4.3'], 'cn caseIgnore');
  assert.equal(types['member'], 'member dn');
});

test('key types: a name mapped otherwise or no longer known is a change; a name added is not', () => {
  const stored = { cn: 'cn caseIgnore', devicetag: 'devicetag caseExact', uid: 'uid caseIgnore', mail: 'mail caseIgnore' };
  const current = { cn: 'cn caseIgnore', uid: 'uid caseExact', mail: 'mail caseIgnore', title: 'title caseIgnore' };
  assert.deepEqual(keyTypeChanges(stored, current), ['devicetag', 'uid']);
  assert.deepEqual(keyTypeChanges(stored, { ...stored, title: 'title caseIgnore' }), []);
  assert.deepEqual(mergedKeyTypes({ cn: 'cn caseIgnore' }, { title: 'title caseIgnore' }), { cn: 'cn caseIgnore', title: 'title caseIgnore' });
});

test('key types: recorded when nothing is, kept when a schema maps otherwise, grown by the names a schema adds', async () => {
  const meta = new Map<string, string>();
  const holder: KeyTypesHolder = {
    getMeta: async (name) => meta.get(name),
    writeLocal: async (ops: readonly BatchOp[]) => { for (const op of ops) if (op.type === 'put') meta.set(op.key.slice(2), op.value.toString()); },
  };
  const builtIn = buildSchema([]);
  assert.deepEqual(await keyTypesChanged(holder, builtIn), []);
  const recorded = meta.get('keyTypes');
  assert.ok(recorded && JSON.parse(recorded)['cn'] === 'cn caseIgnore');
  meta.set('keyTypes', JSON.stringify({ ...JSON.parse(recorded), cn: 'cn caseExact' }));
  assert.deepEqual(await keyTypesChanged(holder, builtIn), ['cn']);
  assert.equal(JSON.parse(meta.get('keyTypes')!)['cn'], 'cn caseExact', 'a changed record is left as it was');
  meta.set('keyTypes', JSON.stringify({ cn: 'cn caseIgnore' }));
  assert.deepEqual(await keyTypesChanged(holder, builtIn), []);
  assert.equal(JSON.parse(meta.get('keyTypes')!)['uid'], 'uid caseIgnore', 'names the schema adds are recorded');
  meta.set('keyTypes', 'not json');
  assert.deepEqual(await keyTypesChanged(holder, builtIn), [], 'an unreadable record is made again');
});
