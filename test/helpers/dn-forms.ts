/**
 * DNs in the forms a parser's shortcut must get right (test/unit/server/bind-names.test.ts,
 * test/unit/server/handlers/entry-key.test.ts): plain ones in any case and spacing, and ones whose
 * first RDN or parent holds an escape, a quote, a hex value, a multi-valued RDN or `;`.
 */
export const DN_FORMS: readonly string[] = [
  'uid=user.1,ou=People,dc=example,dc=com',
  'UID=User.1,OU=people,DC=Example,DC=COM',
  'uid=user.2, ou=People, dc=example, dc=com',
  'uid = user.3 ,ou=People,dc=example,dc=com',
  'uid=  spaced  ,ou=People,dc=example,dc=com',
  'dc=com',
  'cn=a\\,b,ou=People,dc=example,dc=com',
  'cn="a,b",ou=People,dc=example,dc=com',
  'cn=#04024869,ou=People,dc=example,dc=com',
  'cn=a+sn=b,ou=People,dc=example,dc=com',
  'cn=x;ou=People;dc=example;dc=com',
  'cn=y,ou=Pe\\2Cople,dc=example,dc=com',
  'cn=z,ou="Pe,ople",dc=example,dc=com',
  'cn=a=b,ou=Pe\\2Cople,dc=example,dc=com',
  'cn=a<b,ou="P,q",dc=example,dc=com',
  'commonName=Zoë,ou=People,dc=example,dc=com',
  '2.5.4.3=w,ou=People,dc=example,dc=com',
  'uid=a,dc=x=',
];

/** Malformed DNs, refused by parseDn. */
export const MALFORMED_DNS: readonly string[] = ['uid=a,', 'uid=a,=b', 'nonsense,ou=People,dc=example,dc=com', 'uid=a, ,dc=com', 'uid=b,ou=People,dc=example,dc=com,'];
