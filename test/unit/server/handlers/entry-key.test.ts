/** entryKeyOf (src/server/handlers/entry-key.ts) gives dnKey(parseDn(dn)) for every form of DN, its parents' keys kept. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entryKeyOf } from '../../../../src/server/handlers/entry-key.js';
import { dnKey, parseDn } from '../../../../src/store/index.js';
import { DN_FORMS, MALFORMED_DNS } from '../../../helpers/dn-forms.js';

test('entryKeyOf is dnKey(parseDn(dn)), the first time and when its parent is known', () => {
  for (let round = 0; round < 2; round += 1) {
    for (const dn of DN_FORMS) assert.equal(entryKeyOf(dn), dnKey(parseDn(dn)), dn);
  }
});

test('a malformed DN is refused as parseDn refuses it', () => {
  for (const dn of MALFORMED_DNS) {
    assert.throws(() => dnKey(parseDn(dn)), /invalid DN/, dn);
    assert.throws(() => entryKeyOf(dn), /invalid DN/, dn);
  }
});
