import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { build, compileFilter, filterReads, filterToString, matcher, matches, mentionsAttribute, type Filter, type MatchContext, type Truth } from '../../../../src/server/filter/index.js';
import { decodeEntry, encodeEntry, KEEP_NONE } from '../../../../src/store/codec.js';
import type { Entry } from '../../../../src/store/index.js';
import { entry, person } from '../../../helpers/store.js';

const { and, or, not, equality, approx, greaterOrEqual, lessOrEqual, present, substrings, extensible } = build;

function check(target: Entry, expected: Truth, filters: readonly Filter[], context?: MatchContext): void {
  for (const filter of filters) assert.equal(matches(filter, target, context), expected, `${filterToString(filter)} on ${target.dn}`);
}

const user = person(1, {
  uidNumber: '9', gidNumber: '100', userPassword: 'Secret', telephoneNumber: '+1 555-0100', homeDirectory: '/home/b',
  description: 'abcabc', 'description;lang-en': 'Hello World', createTimestamp: '20240101120000Z', employeeNumber: '1234',
  shadowFlag: '514', pwdReset: 'TRUE', displayName: 'Jane   Q  Doe',
});
const group = entry('cn=Admins,ou=Groups,dc=example,dc=com', {
  objectClass: ['top', 'groupOfNames'], cn: 'Admins',
  member: ['uid=user.1,ou=people,dc=example,dc=com', 'uid=user.2,ou=people,dc=example,dc=com'],
});
const bare = entry('cn=bare,dc=example,dc=com', { cn: 'bare' });

/** Items that are TRUE, FALSE and Undefined for `user`, for the logic tables. */
const T = present('mail');
const F = equality('title', 'nothing');
const U = extensible('x', { attribute: 'cn', rule: 'noSuchMatch' });
const truthOf = { T: true, F: false, U: undefined } as const;
const items = { T, F, U } as const;
type Name = keyof typeof items;

describe('filter evaluation: equality', () => {
  test('attribute names in any case, by alias, OID or OID.-prefixed OID', () => {
    check(user, true, [
      equality('cn', 'User 1'), equality('CN', 'User 1'), equality('commonName', 'User 1'),
      equality('2.5.4.3', 'User 1'), equality('OID.2.5.4.3', 'User 1'), equality('userid', 'user.1'), equality('0.9.2342.19200300.100.1.1', 'user.1'),
    ]);
  });

  test('case-ignore values: case and runs of spaces do not matter', () => {
    check(user, true, [equality('cn', 'USER 1'), equality('cn', '  user   1 '), equality('mail', 'User.1@Example.COM')]);
    check(user, false, [equality('cn', 'User 2'), equality('cn', 'User1'), equality('title', 'x')]);
  });

  test('DN-valued attributes compare as normalized DNs', () => {
    check(group, true, [
      equality('member', 'UID=User.1, OU=People,dc=example,dc=com'),
      equality('member', 'uid=user.2,ou=people,dc=example,dc=com'),
      equality('2.5.4.31', 'uid = USER.2 ,ou=PEOPLE , DC=Example,DC=Com'),
    ]);
    check(group, false, [equality('member', 'uid=user.3,ou=people,dc=example,dc=com')]);
  });

  test('an invalid assertion value (a DN that does not parse, an INTEGER that is not a number) is Undefined', () => {
    check(group, undefined, [equality('member', 'not a dn'), not(equality('member', 'not a dn'))]);
    check(user, undefined, [equality('uidNumber', 'nine'), not(equality('uidNumber', 'nine'))]);
  });

  test('userPassword compares exact octets', () => {
    check(user, true, [equality('userPassword', 'Secret'), equality('userPassword', Buffer.from('Secret'))]);
    check(user, false, [equality('userPassword', 'secret'), equality('userPassword', 'Secret '), equality('userPassword', 'SECRET')]);
  });

  test('uidNumber by the integer rule; telephone numbers without spaces and hyphens', () => {
    check(user, true, [equality('uidNumber', '9'), equality('uidNumber', '009'), equality('uidNumber', ' +9 '), equality('telephoneNumber', '+15550100')]);
    check(user, false, [equality('uidNumber', '90'), equality('telephoneNumber', '+15550101')]);
  });

  test('GeneralizedTime equality is chronological', () => {
    check(user, true, [equality('createTimestamp', '20240101120000Z'), equality('createTimestamp', '20240101130000+0100'), equality('createTimestamp', '20240101120000.000Z')]);
    check(user, false, [equality('createTimestamp', '20240101120001Z')]);
    check(user, undefined, [equality('createTimestamp', 'yesterday')]);
  });

  test('options: a description with options selects only attributes having them', () => {
    check(user, true, [
      equality('description', 'hello world'), equality('description', 'abcabc'), equality('description;lang-en', 'HELLO world'),
      equality('description;LANG-EN', 'hello world'), present('description;lang-en'),
    ]);
    check(user, false, [equality('description;lang-en', 'abcabc'), present('description;lang-fr'), equality('description;lang-fr', 'hello world')]);
  });

  test('a malformed attribute description is Undefined', () => {
    check(user, undefined, [equality('c n', 'x'), equality('', 'x'), present('cn;'), substrings('-cn', { initial: 'u' })]);
  });
});

describe('filter evaluation: a type the schema does not know', () => {
  // An entry can hold one only when loaded without the schema check; filters written for another
  // server's schema name them too. RFC 4511 4.5.1.7 (and slapd): the item is Undefined.
  const odd = entry('cn=odd,dc=example,dc=com', { objectClass: 'device', cn: 'odd', fooBar: 'x' });

  test('every kind of item on it is Undefined, and so is its NOT', () => {
    const items = [
      equality('fooBar', 'x'), equality('fooBar', 'y'), present('fooBar'), present('FOOBAR;lang-en'), substrings('fooBar', { initial: 'x' }),
      greaterOrEqual('fooBar', 'a'), lessOrEqual('fooBar', 'z'), approx('fooBar', 'x'),
      extensible('x', { attribute: 'fooBar' }), extensible('x', { attribute: 'fooBar', rule: 'caseIgnoreMatch' }), extensible('x', { attribute: 'fooBar', dnAttributes: true }),
    ];
    for (const target of [odd, user]) check(target, undefined, [...items, ...items.map((item) => not(item))]);
  });

  test('beside known items it follows the three-valued logic', () => {
    check(odd, true, [or(equality('fooBar', 'x'), equality('cn', 'odd'))]);
    check(odd, false, [and(equality('fooBar', 'x'), equality('cn', 'even'))]);
    check(odd, undefined, [and(present('cn'), not(equality('fooBar', 'y')))]);
  });
});

describe('filter evaluation: presence', () => {
  test('the entry has the attribute (any alias or case); (objectClass=*) is always TRUE', () => {
    check(user, true, [present('mail'), present('MAIL'), present('rfc822Mailbox'), present('objectClass'), present('OBJECTCLASS')]);
    check(bare, true, [present('objectClass'), present('2.5.4.0')]);
    check(user, false, [present('title'), present('member')]);
  });
});

describe('filter evaluation: substrings', () => {
  test('initial, any and final on the case-ignore form', () => {
    check(user, true, [
      substrings('cn', { initial: 'us' }), substrings('cn', { any: ['ER'] }), substrings('cn', { final: ' 1' }),
      substrings('cn', { initial: 'U', any: ['s', 'r'], final: '1' }), substrings('commonName', { initial: 'USER 1' }),
    ]);
    check(user, false, [substrings('cn', { initial: 'ser' }), substrings('cn', { final: 'User' }), substrings('cn', { any: ['r', 's'] })]);
  });

  test('components match in order and never overlap', () => {
    check(user, true, [
      substrings('description', { initial: 'abc', final: 'abc' }), substrings('description', { any: ['bc', 'bc'] }),
      substrings('description', { initial: 'ab', any: ['ca'], final: 'bc' }),
    ]);
    check(user, false, [
      substrings('description', { initial: 'abca', final: 'cabc' }), substrings('description', { any: ['bc', 'bc', 'bc'] }),
      substrings('description', { initial: 'abcabc', final: 'abc' }), substrings('description', { any: ['cab', 'abc'] }),
      substrings('description', { initial: 'abcab', any: ['b'] }),
    ]);
  });

  test('runs of spaces count as one; inner spaces stay significant', () => {
    check(user, true, [
      substrings('displayName', { initial: 'jane q' }), substrings('displayName', { final: 'q   doe' }),
      substrings('displayName', { initial: '  Jane ', final: ' doe  ' }), substrings('displayName', { any: [' q '] }),
    ]);
    check(user, false, [substrings('displayName', { initial: 'janeq' }), substrings('displayName', { initial: 'jane ', any: ['jane'] })]);
  });

  test('telephone numbers without separators; userPassword as exact octets', () => {
    check(user, true, [substrings('telephoneNumber', { final: '555 0100' }), substrings('userPassword', { initial: 'Sec' })]);
    check(user, false, [substrings('userPassword', { initial: 'sec' })]);
  });

  test('DN, INTEGER and time attributes have no substring rule: Undefined', () => {
    check(group, undefined, [substrings('member', { initial: 'uid=user.1' })]);
    check(user, undefined, [substrings('uidNumber', { initial: '9' }), substrings('createTimestamp', { initial: '2024' })]);
  });
});

describe('filter evaluation: ordering', () => {
  test('integers compare numerically, big ones too', () => {
    check(user, true, [lessOrEqual('uidNumber', '10'), greaterOrEqual('uidNumber', '9'), greaterOrEqual('uidNumber', '-10'), lessOrEqual('uidNumber', '09')]);
    check(user, false, [greaterOrEqual('uidNumber', '10'), lessOrEqual('uidNumber', '8')]);
    const big = person(2, { uidNumber: '123456789012345678901234567890' });
    check(big, true, [greaterOrEqual('uidNumber', '123456789012345678901234567889'), lessOrEqual('uidNumber', '123456789012345678901234567890')]);
    check(big, false, [greaterOrEqual('uidNumber', '123456789012345678901234567891')]);
    check(user, undefined, [greaterOrEqual('uidNumber', 'ten')]);
  });

  test('GeneralizedTime compares chronologically, offsets and fractions included', () => {
    check(user, true, [
      greaterOrEqual('createTimestamp', '20240101113000Z'), greaterOrEqual('createTimestamp', '20240101130000+0200'),
      lessOrEqual('createTimestamp', '20240101070000-0500'), greaterOrEqual('createTimestamp', '2024010112Z'),
      greaterOrEqual('createTimestamp', '202401011159.99Z'), greaterOrEqual('createTimestamp', '2024010111.99Z'),
      lessOrEqual('createTimestamp', '20240101120000,5Z'),
      greaterOrEqual('createTimestamp', '19991231235959Z'), lessOrEqual('createTimestamp', '20240101120000'),
    ]);
    check(user, false, [
      greaterOrEqual('createTimestamp', '20240101120000.5Z'), lessOrEqual('createTimestamp', '20240101125959+0100'),
      lessOrEqual('createTimestamp', '202401011159.99Z'),
    ]);
    check(user, undefined, [greaterOrEqual('createTimestamp', 'yesterday'), greaterOrEqual('createTimestamp', '20241301000000Z'), greaterOrEqual('createTimestamp', '20230229000000Z')]);
  });

  test('strings by their normalized form: case-ignore and case-exact', () => {
    check(user, true, [lessOrEqual('sn', 'NUMBER 3'), greaterOrEqual('sn', 'number  1'), greaterOrEqual('homeDirectory', '/home/a')]);
    check(user, false, [greaterOrEqual('sn', 'number 3'), greaterOrEqual('homeDirectory', '/home/c'), lessOrEqual('homeDirectory', '/HOME/A')]);
  });

  test('octet, DN, OID and telephone attributes have no ordering: Undefined', () => {
    check(user, undefined, [greaterOrEqual('userPassword', 'a'), lessOrEqual('objectClass', 'z'), greaterOrEqual('telephoneNumber', '1')]);
    check(group, undefined, [greaterOrEqual('member', 'uid=a,dc=example,dc=com')]);
  });
});

describe('filter evaluation: approximate match', () => {
  test('equality after lower-casing and squeezing spaces; other types by their equality rule', () => {
    check(user, true, [approx('cn', 'user   1'), approx('CN', ' USER 1'), approx('homeDirectory', '/HOME/B'), approx('uidNumber', '009')]);
    check(user, false, [approx('cn', 'user 2'), approx('userPassword', 'secret')]);
  });
});

describe('filter evaluation: three-valued logic (RFC 4511 4.5.1.7)', () => {
  const names: Name[] = ['T', 'F', 'U'];

  test('the items are TRUE, FALSE and Undefined', () => {
    for (const name of names) assert.equal(matches(items[name], user), truthOf[name], name);
  });

  test('NOT: T->F, F->T, U->U', () => {
    check(user, false, [not(T)]);
    check(user, true, [not(F), not(not(T))]);
    check(user, undefined, [not(U), not(not(U))]);
  });

  test('AND: FALSE if any FALSE, else Undefined if any Undefined, else TRUE', () => {
    const expected: Record<string, Truth> = { TT: true, TF: false, TU: undefined, FT: false, FF: false, FU: false, UT: undefined, UF: false, UU: undefined };
    for (const a of names) for (const b of names) check(user, expected[a + b], [and(items[a], items[b])]);
    check(user, false, [and(U, T, F)]);
  });

  test('OR: TRUE if any TRUE, else Undefined if any Undefined, else FALSE', () => {
    const expected: Record<string, Truth> = { TT: true, TF: true, TU: true, FT: true, FF: false, FU: undefined, UT: true, UF: undefined, UU: undefined };
    for (const a of names) for (const b of names) check(user, expected[a + b], [or(items[a], items[b])]);
    check(user, true, [or(U, F, T)]);
  });

  test('the empty AND is TRUE and the empty OR is FALSE (RFC 4526)', () => {
    check(user, true, [and()]);
    check(user, false, [or()]);
  });
});

describe('filter evaluation: extensible match', () => {
  test('a rule by name or OID applied to the type\'s values', () => {
    check(user, true, [
      extensible('User 1', { attribute: 'cn', rule: 'caseExactMatch' }), extensible('User 1', { attribute: 'cn', rule: '2.5.13.5' }),
      extensible('USER 1', { attribute: 'cn', rule: 'CASEIGNOREMATCH' }), extensible('user 1', { attribute: 'cn', rule: '2.5.13.2' }),
    ]);
    check(user, false, [extensible('user 1', { attribute: 'cn', rule: 'caseExactMatch' })]);
  });

  test('without a rule, the type\'s equality rule; without a type, every attribute', () => {
    check(user, true, [extensible('USER 1', { attribute: 'cn' }), extensible('009', { attribute: 'uidNumber' })]);
    check(user, true, [extensible('USER.1@example.com', { rule: 'caseIgnoreMatch' }), extensible('Secret', { rule: 'octetStringMatch' })]);
    check(user, false, [extensible('nobody', { rule: 'caseIgnoreMatch' })]);
  });

  test('the common rules', () => {
    check(user, true, [
      extensible('0009', { attribute: 'uidNumber', rule: 'integerMatch' }),
      extensible('10', { attribute: 'uidNumber', rule: 'integerOrderingMatch' }),
      extensible('Secret', { attribute: 'userPassword', rule: '2.5.13.17' }),
      extensible('+15550100', { attribute: 'telephoneNumber', rule: 'telephoneNumberMatch' }),
      extensible('20240101130000+0100', { attribute: 'createTimestamp', rule: 'generalizedTimeMatch' }),
      extensible('20250101000000Z', { attribute: 'createTimestamp', rule: '2.5.13.28' }),
      extensible('user 2', { attribute: 'cn', rule: 'caseIgnoreOrderingMatch' }),
      extensible('true', { attribute: 'pwdReset', rule: 'booleanMatch' }),
      extensible('12 34', { attribute: 'employeeNumber', rule: 'numericStringMatch' }),
      extensible('USER.1@EXAMPLE.COM', { attribute: 'mail', rule: 'caseIgnoreIA5Match' }),
      extensible('user.1@example.com', { attribute: 'mail', rule: '1.3.6.1.4.1.1466.109.114.1' }),
      extensible('2', { attribute: 'shadowFlag', rule: '1.2.840.113556.1.4.803' }),
      extensible('6', { attribute: 'shadowFlag', rule: 'bitOrMatch' }),
      extensible('inetOrgPerson', { attribute: 'objectClass', rule: 'objectIdentifierMatch' }),
    ]);
    check(user, false, [
      extensible('9', { attribute: 'uidNumber', rule: '2.5.13.15' }),
      extensible('20240101120000Z', { attribute: 'createTimestamp', rule: 'generalizedTimeOrderingMatch' }),
      extensible('USER.1@example.com', { attribute: 'mail', rule: 'caseExactIA5Match' }),
      extensible('6', { attribute: 'shadowFlag', rule: 'bitAndMatch' }),
      extensible('8', { attribute: 'shadowFlag', rule: '1.2.840.113556.1.4.804' }),
      extensible('FALSE', { attribute: 'pwdReset', rule: 'booleanMatch' }),
    ]);
    check(group, true, [extensible('UID=USER.1, OU=People,dc=example,dc=com', { attribute: 'member', rule: 'distinguishedNameMatch' })]);
  });

  test('dnAttributes also matches the AVAs of the entry\'s DN', () => {
    check(user, true, [
      extensible('people', { attribute: 'ou', dnAttributes: true }), extensible('EXAMPLE', { rule: 'caseIgnoreMatch', dnAttributes: true }),
      extensible('example', { attribute: 'domainComponent', rule: 'caseExactMatch', dnAttributes: true }),
    ]);
    check(user, false, [
      extensible('people', { attribute: 'ou' }), extensible('Example', { attribute: 'dc', rule: 'caseExactMatch', dnAttributes: true }),
      extensible('people', { attribute: 'cn', dnAttributes: true }),
    ]);
  });

  test('an unknown rule, no type and no rule, or an assertion invalid for the rule: Undefined', () => {
    check(user, undefined, [
      extensible('x', { attribute: 'cn', rule: 'fooMatch' }), extensible('x', { rule: '1.2.3.4' }), extensible('x', {}),
      extensible('nine', { attribute: 'uidNumber', rule: 'integerMatch' }), extensible('maybe', { attribute: 'pwdReset', rule: 'booleanMatch' }),
      extensible('é', { attribute: 'mail', rule: 'caseIgnoreIA5Match' }), extensible('x', { attribute: 'c n', rule: 'caseIgnoreMatch' }),
    ]);
  });
});

describe('filter evaluation: entryDN (RFC 5020)', () => {
  test('the entry\'s DN, compared as a DN, offered to every item as a value the entry holds', () => {
    check(user, true, [
      equality('entryDN', 'uid=user.1,ou=People,dc=example,dc=com'), equality('ENTRYDN', 'UID=USER.1, ou=people,dc=example,dc=com'),
      equality('1.3.6.1.1.20', 'uid=user.1,ou=people,dc=example,dc=com'), present('entryDN'),
    ]);
    check(user, false, [equality('entryDN', 'uid=user.2,ou=People,dc=example,dc=com'), not(present('entryDN'))]);
  });
});

describe('filter evaluation: hasSubordinates', () => {
  test('computed by the server and passed in the context', () => {
    check(user, true, [equality('hasSubordinates', 'TRUE'), equality('HASSUBORDINATES', 'true'), equality('2.5.18.9', 'TRUE'), present('hasSubordinates')], { hasSubordinates: true });
    check(user, false, [equality('hasSubordinates', 'TRUE')], { hasSubordinates: false });
    check(user, true, [equality('hasSubordinates', 'FALSE'), extensible('false', { attribute: 'hasSubordinates', rule: 'booleanMatch' })], { hasSubordinates: false });
    check(user, false, [equality('hasSubordinates', 'TRUE'), present('hasSubordinates')]);
  });

  test('an entry\'s own value wins over the context', () => {
    const withOwn = entry('ou=x,dc=example,dc=com', { objectClass: 'organizationalUnit', ou: 'x', hasSubordinates: 'FALSE' });
    check(withOwn, false, [equality('hasSubordinates', 'TRUE')], { hasSubordinates: true });
  });
});

describe('filter evaluation: the compiled filter', () => {
  test('is compiled once per Filter object and gives the same answers', () => {
    const filter = and(equality('objectClass', 'person'), substrings('cn', { initial: 'user' }));
    assert.equal(compileFilter(filter), compileFilter(filter));
    assert.equal(compileFilter(filter)(user), true);
    assert.equal(compileFilter(filter)(group), false);
  });

  test('mentionsAttribute finds a type by any alias, inside AND/OR/NOT and extensible items', () => {
    assert.equal(mentionsAttribute(and(present('cn'), not(equality('2.5.18.9', 'TRUE'))), 'hasSubordinates'), true);
    assert.equal(mentionsAttribute(or(present('cn'), extensible('x', { attribute: 'hasSubordinates;x' })), 'hasSubordinates'), true);
    assert.equal(mentionsAttribute(extensible('TRUE', { rule: 'booleanMatch' }), 'hasSubordinates'), true);
    assert.equal(mentionsAttribute(and(present('cn'), equality('uid', 'x')), 'hasSubordinates'), false);
  });
});

describe('filter evaluation: on the attributes the filter reads only (filterReads)', () => {
  const filters = [
    equality('uid', 'user.1'), equality('UID', 'USER.1'), equality('0.9.2342.19200300.100.1.1', 'user.1'), present('objectClass'),
    and(equality('objectClass', 'person'), substrings('cn', { initial: 'user' })), or(equality('sn', 'nobody'), present('mail')),
    not(equality('title', 'x')), equality('description;lang-en', 'hello world'), equality('description', 'abcabc'),
    greaterOrEqual('uidNumber', '5'), approx('displayName', 'jane q doe'), extensible('user.1', { attribute: 'uid', rule: 'caseExactMatch' }),
    extensible('people', { attribute: 'ou', dnAttributes: true }), equality('member', 'uid=user.2,ou=People,dc=example,dc=com'),
    and(), or(), equality('hasSubordinates', 'TRUE'), equality('bad description!', 'x'), equality('name', 'Admins'),
  ];

  test('every filter is as true, false or Undefined on the projected entry as on the whole one', () => {
    for (const filter of filters) {
      const reads = filterReads(filter);
      assert.notEqual(reads, undefined, filterToString(filter));
      for (const target of [user, group, bare]) {
        const projected = decodeEntry(encodeEntry(target), reads);
        assert.ok(projected.attributes.length < target.attributes.length || target === bare, `${filterToString(filter)} decodes less of ${target.dn}`);
        for (const context of [{}, { hasSubordinates: true }]) {
          assert.equal(matches(filter, projected, context), matches(filter, target, context), `${filterToString(filter)} on ${target.dn}`);
        }
      }
    }
  });

  test('a filter that may read any attribute (an extensible match without a type) reads them all', () => {
    assert.equal(filterReads(extensible('Admins', { rule: 'caseIgnoreMatch' })), undefined);
    assert.equal(filterReads(and(present('cn'), not(extensible('x', { rule: 'caseIgnoreMatch' })))), undefined);
  });

  test('a filter reading memberOf alone (computed, never stored) decodes no attribute; with another type it reads that type', () => {
    const memberOf = (group: string) => equality('memberOf', `cn=${group},ou=Groups,dc=example,dc=com`);
    const context = { memberOf: [Buffer.from('cn=a,ou=Groups,dc=example,dc=com')] };
    for (const filter of [memberOf('a'), and(memberOf('a'), not(memberOf('b'))), present('MEMBEROF')]) {
      assert.equal(filterReads(filter), KEEP_NONE, filterToString(filter));
      const projected = decodeEntry(encodeEntry(user), filterReads(filter));
      assert.deepEqual(projected, { dn: user.dn, attributes: [] });
      assert.equal(matches(filter, projected, context), matches(filter, user, context), filterToString(filter));
    }
    assert.notEqual(filterReads(and(memberOf('a'), equality('uid', 'user.1'))), KEEP_NONE);
    assert.equal(filterReads(and(memberOf('a'), equality('uid', 'user.1')))!('uid'), true);
  });

  test('the same types give the same test; a name is of a type by any alias or case, with options', () => {
    assert.equal(filterReads(equality('uid', 'a')), filterReads(present('UID')));
    const reads = filterReads(and(equality('cn', 'x'), present('mail')))!;
    assert.deepEqual(['CN', 'commonName', 'cn;lang-en', '2.5.4.3', 'mail', 'sn', 'uid', 'name'].map(reads), [true, true, true, true, true, false, false, false]);
  });
});

describe('filter evaluation: one matcher for a search\'s entries', () => {
  test('each entry is tested on its own values (the memo of the one before is not kept)', () => {
    for (const filter of [equality('cn', 'Admins'), present('mail'), and(present('objectClass'), not(substrings('cn', { initial: 'user' })))]) {
      const test = matcher(filter);
      const answers = [user, group, bare, user, bare, group, group, user].map((target) => test(target));
      assert.deepEqual(answers, [user, group, bare, user, bare, group, group, user].map((target) => matches(filter, target)), filterToString(filter));
      assert.ok(answers.includes(true) && answers.includes(false), `${filterToString(filter)} tells the entries apart`);
    }
  });
});
