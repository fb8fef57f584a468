/** Attribute selections (src/server/attributes.ts): kept per attribute list, each list its own. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSelection } from '../../../src/server/attributes.js';

test('a kept selection is that of its own list: no two lists share one', () => {
  const all = parseSelection([]);
  assert.equal(all.allUser, true);
  // [''] names no attribute (and asks for no user attribute), though it joins to the same text as [].
  const empty = parseSelection(['']);
  assert.equal(empty.allUser, false);
  assert.deepEqual([...empty.named], []);
  const odd = parseSelection(['cn\u0000sn']);
  const pair = parseSelection(['cn', 'sn']);
  assert.deepEqual([...pair.named].sort(), ['cn', 'sn']);
  assert.notEqual(odd, pair);
  assert.equal(parseSelection([]), all, 'the same list gets the kept selection');
});

test('storedNone: a selection of no stored attribute (1.1, memberOf alone), so a record\'s attributes need not be walked', () => {
  for (const list of [['1.1'], ['memberOf'], ['MEMBEROF'], ['1.1', 'memberOf'], ['1.2.840.113556.1.2.102']]) assert.equal(parseSelection(list).storedNone, true, list.join(' '));
  for (const list of [[], ['*'], ['+'], ['cn'], ['memberOf', 'cn'], ['1.1', '+']]) assert.equal(parseSelection(list).storedNone, false, list.join(' '));
});
