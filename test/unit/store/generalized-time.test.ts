/**
 * GeneralizedTime in src/store/time.ts: the writer, the lenient parser (filters, lockout), the
 * strict check of values a client writes, and that check applied by checkValues to the writable
 * GeneralizedTime attributes (pwdAccountLockedTime, pwdFailureTime) and to no others.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { DirectoryError, generalizedTime, isGeneralizedTime, parseGeneralizedTime } from '../../../src/store/index.js';
import { checkValues } from '../../../src/store/validate.js';

const time = (text: string) => Buffer.from(text, 'utf8');

describe('GeneralizedTime', () => {
  test('written as OpenLDAP writes it, with or without milliseconds, and read back', () => {
    const date = new Date(Date.UTC(2024, 0, 31, 23, 59, 58, 123));
    assert.equal(generalizedTime(date), '20240131235958Z');
    assert.equal(generalizedTime(date, true), '20240131235958.123Z');
    assert.equal(parseGeneralizedTime(time(generalizedTime(date, true))), date.getTime());
    assert.ok(isGeneralizedTime(time(generalizedTime(date))) && isGeneralizedTime(time(generalizedTime(date, true))));
  });

  test('parsed leniently: offsets, fractions of the last unit, no zone (UTC), spaces, a lower-case z', () => {
    const noon = Date.UTC(2024, 0, 1, 12);
    for (const text of ['20240101120000Z', '2024010112Z', '202401011200Z', '20240101140000+0200', '2024010107-05', ' 20240101120000Z ', '20240101120000z', '20240101120000']) {
      assert.equal(parseGeneralizedTime(time(text)), noon, text);
    }
    assert.equal(parseGeneralizedTime(time('2024010112.5Z')), noon + 30 * 60_000);
    assert.equal(parseGeneralizedTime(time('20240101120000,25Z')), noon + 250);
    assert.equal(parseGeneralizedTime(time('20240229000000Z')), Date.UTC(2024, 1, 29));
    for (const text of ['', 'garbage', '2024-01-01T12:00:00Z', '20230229000000Z', '20241301000000Z', '20240101240000Z', '20240101126000Z',
      '20240101120000+2400', '20240101120000+0060', '2024010112000Z']) {
      assert.equal(parseGeneralizedTime(time(text)), undefined, JSON.stringify(text));
    }
  });

  test('checked strictly (RFC 4517 3.3.13): a zone is required, no spaces, upper-case Z; 000001010000Z is valid', () => {
    for (const text of ['000001010000Z', '20240101120000Z', '20240101120000.123Z', '2024010112Z', '202401011200Z', '2024010112+02',
      '20240101120000-0130', '20240101120000,5Z', '20241231235960Z']) {
      assert.ok(isGeneralizedTime(time(text)), text);
    }
    for (const text of ['', 'garbage', '0', '20240101120000', ' 20240101120000Z', '20240101120000Z ', '20240101120000z', '2024-01-01T12:00:00Z',
      '20241301000000Z', '20240230000000Z', '20240101250000Z', '20240101120000+2400', '20240101120000.Z', '２０２４01011200Z']) {
      assert.ok(!isGeneralizedTime(time(text)), JSON.stringify(text));
    }
  });
});

describe('checkValues: GeneralizedTime syntax', () => {
  const syntaxError = (name: string, values: readonly string[]) => {
    try {
      checkValues(name, values.map(time));
      return undefined;
    } catch (error) {
      assert.ok(error instanceof DirectoryError);
      return error;
    }
  };

  test('pwdAccountLockedTime and pwdFailureTime (by any name, OID or options) take times only: invalidAttributeSyntax (21)', () => {
    for (const name of ['pwdAccountLockedTime', 'PWDFAILURETIME', '1.3.6.1.4.1.42.2.27.8.1.17', 'pwdFailureTime;x-any']) {
      const error = syntaxError(name, ['20240101120000Z', 'garbage']);
      assert.equal(error?.code, 21, name);
      assert.match(error!.message, new RegExp(`^${name.replace(/\./g, '\\.')}: value #1 invalid per syntax`));
      assert.equal(syntaxError(name, ['20240101120000Z', '000001010000Z', '20240101120000.5+0100']), undefined, name);
    }
  });

  test('a time given twice is still attributeOrValueExists (20)', () => {
    assert.equal(syntaxError('pwdFailureTime', ['20240101120000Z', '20240101120000Z'])?.code, 20);
  });

  test('GeneralizedTime attributes the server keeps are not checked here (clients cannot write them; imports keep theirs)', () => {
    assert.equal(syntaxError('createTimestamp', ['not a time']), undefined);
    assert.equal(syntaxError('pwdChangedTime', ['not a time']), undefined);
  });
});
