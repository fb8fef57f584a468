/**
 * Test data in the spirit of OpenDJ's example.template: the base entry, ou=People, and
 * uid=user.0 .. user.N-1 as inetOrgPerson with names, phones and addresses. Deterministic for a
 * seed. Names are built from syllables (the generator ships no name lists).
 */
import type { Entry } from '../store/entry.js';
import { parseDn } from '../store/dn.js';
import { SeededRandom } from './random.js';

export interface MakeLdifOptions {
  readonly users: number;
  readonly baseDn: string;
  readonly seed: string;
  /** userPassword of every user, in clear (hash it with passwords.ts if wanted). */
  readonly password: string;
}

const ONSETS = ['b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z', 'br', 'ch', 'cl', 'dr', 'st', 'tr', 'sh'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou'];
const CODAS = ['', '', 'n', 'r', 'l', 's', 'th', 'nd', 'rk', 'm'];
const STREETS = ['Main', 'Oak', 'Pine', 'Maple', 'Cedar', 'Elm', 'Lake', 'Hill', 'Park', 'River', 'Sunset', 'Railroad', 'Church', 'Mill'];
const CITIES = ['Abilene', 'Bakersfield', 'Carson', 'Dover', 'Eugene', 'Fresno', 'Gary', 'Helena', 'Irvine', 'Juneau', 'Kent', 'Lansing'];
const STATES = ['AK', 'AL', 'AZ', 'CA', 'CO', 'DE', 'FL', 'GA', 'IA', 'KS', 'MA', 'MI', 'NY', 'OR', 'TX', 'WA'];

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function name(random: SeededRandom, syllables: number): string {
  let word = '';
  for (let i = 0; i < syllables; i += 1) word += random.pick(ONSETS) + random.pick(VOWELS);
  return capitalize(word + random.pick(CODAS));
}

const phone = (random: SeededRandom): string => `+1 ${random.digits(3)} ${random.digits(3)} ${random.digits(4)}`;

function entry(dn: string, pairs: readonly (readonly [string, string])[]): Entry {
  const attributes = new Map<string, Buffer[]>();
  for (const [attribute, value] of pairs) {
    const list = attributes.get(attribute) ?? [];
    list.push(Buffer.from(value, 'utf8'));
    attributes.set(attribute, list);
  }
  return { dn, attributes: [...attributes].map(([attributeName, values]) => ({ name: attributeName, values })) };
}

/** The base entry for a suffix whose first RDN is dc, o or ou. */
export function baseEntry(baseDn: string): Entry {
  const first = parseDn(baseDn)[0]?.[0];
  const classes: Record<string, string> = { dc: 'domain', o: 'organization', ou: 'organizationalUnit' };
  const objectClass = first ? classes[first.type.toLowerCase()] : undefined;
  if (!first || !objectClass) throw new Error(`make-ldif needs a base DN starting with dc=, o= or ou=, not "${baseDn}"`);
  return entry(baseDn, [['objectClass', 'top'], ['objectClass', objectClass], [first.type.toLowerCase(), first.value]]);
}

/** example.com for dc=example,dc=com; the base's values joined with dots otherwise. */
function mailDomain(baseDn: string): string {
  return parseDn(baseDn).map((rdn) => rdn[0]!.value.toLowerCase().replace(/\s+/g, '-')).join('.');
}

function person(n: number, people: string, domain: string, random: SeededRandom, password: string): Entry {
  const given = name(random, 1 + random.below(2));
  const surname = name(random, 1 + random.below(3));
  const cn = `${given} ${surname}`;
  const street = `${random.digits(5)} ${random.pick(STREETS)} Street`;
  const city = random.pick(CITIES);
  const state = random.pick(STATES);
  const postalCode = random.digits(5);
  return entry(`uid=user.${n},${people}`, [
    ['objectClass', 'top'], ['objectClass', 'person'], ['objectClass', 'organizationalPerson'], ['objectClass', 'inetOrgPerson'],
    ['givenName', given], ['sn', surname], ['cn', cn],
    ['initials', `${given[0]}${String.fromCharCode(65 + random.below(26))}${surname[0]}`],
    ['employeeNumber', String(n)], ['uid', `user.${n}`], ['mail', `user.${n}@${domain}`], ['userPassword', password],
    ['telephoneNumber', phone(random)], ['homePhone', phone(random)], ['pager', phone(random)], ['mobile', phone(random)],
    ['street', street], ['l', city], ['st', state], ['postalCode', postalCode],
    ['postalAddress', `${cn}$${street}$${city}, ${state}  ${postalCode}`],
    ['description', `This is the description for ${cn}.`],
  ]);
}

/** The entries, in an order an import can load (parents first). */
export function* makeEntries(options: MakeLdifOptions): Generator<Entry> {
  const random = new SeededRandom(options.seed);
  const people = `ou=People,${options.baseDn}`;
  const domain = mailDomain(options.baseDn);
  yield baseEntry(options.baseDn);
  yield entry(people, [['objectClass', 'top'], ['objectClass', 'organizationalUnit'], ['ou', 'People']]);
  for (let n = 0; n < options.users; n += 1) {
    yield person(n, people, domain, random, options.password);
  }
}
