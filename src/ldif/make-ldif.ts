/**
 * Test data in the spirit of OpenDJ's example.template: the base entry, ou=People, and
 * uid=user.0 .. user.N-1 as inetOrgPerson with names, phones and addresses; with `groups`,
 * ou=Groups and cn=group.0 .. group.G-1 (groupOfNames). Deterministic for a seed (the users are
 * the same with or without groups). Names are built from syllables (the generator ships no name
 * lists).
 *
 * Membership: each user joins 1 to 4 groups (2.2 on average), a group picked with weight
 * 1/(rank + 1), so group.0 is the largest and sizes fall off as in real directories (with
 * 100,000 users and 100 groups: about 35,000 members down to 400); about one group in ten is
 * also a member of an earlier group (nesting without cycles); a group nobody joined gets one
 * user, since groupOfNames must have a member.
 */
import type { Entry } from '../store/entry.js';
import { parseDn } from '../store/dn.js';
import { SeededRandom } from './random.js';

export interface MakeLdifOptions {
  readonly users: number;
  /** Groups under ou=Groups (0: none, and no ou=Groups); needs at least one user. */
  readonly groups?: number;
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

/** How many groups a user joins, picked at random from these. */
const GROUPS_PER_USER = [1, 1, 2, 2, 3, 4];
/** The share of groups (after the first) that are members of an earlier group. */
const NESTED_SHARE = 0.1;

/** Picks group ranks with weight 1/(rank + 1): a few large groups, many small ones. */
class GroupPicker {
  private readonly cumulative: number[] = [];

  constructor(groups: number, private readonly random: SeededRandom) {
    let total = 0;
    for (let rank = 0; rank < groups; rank += 1) this.cumulative.push((total += 1 / (rank + 1)));
  }

  pick(): number {
    const target = (this.random.next() / 0x1_0000_0000) * this.cumulative.at(-1)!;
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.cumulative[middle]! > target) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}

/** Each group's users (numbers) and nested groups (earlier ranks). */
interface Membership {
  readonly users: number[][];
  readonly groups: number[][];
}

function memberships(users: number, groups: number, random: SeededRandom): Membership {
  const picker = new GroupPicker(groups, random);
  const result: Membership = { users: Array.from({ length: groups }, () => []), groups: Array.from({ length: groups }, () => []) };
  for (let n = 0; n < users; n += 1) {
    const joined = new Set<number>();
    const wanted = Math.min(random.pick(GROUPS_PER_USER), groups);
    for (let tries = 0; joined.size < wanted && tries < 4 * wanted; tries += 1) joined.add(picker.pick());
    for (const rank of [...joined].sort((a, b) => a - b)) result.users[rank]!.push(n);
  }
  for (let rank = 1; rank < groups; rank += 1) {
    if (random.next() / 0x1_0000_0000 < NESTED_SHARE) result.groups[random.below(rank)]!.push(rank);
  }
  result.users.forEach((members, rank) => {
    if (members.length === 0 && result.groups[rank]!.length === 0) members.push(random.below(users));
  });
  return result;
}

function groupEntry(rank: number, members: Membership, names: { readonly people: string; readonly groups: string }): Entry {
  const users = members.users[rank]!;
  const nested = members.groups[rank]!;
  return entry(`cn=group.${rank},${names.groups}`, [
    ['objectClass', 'top'], ['objectClass', 'groupOfNames'], ['cn', `group.${rank}`],
    ['description', `Group ${rank}: ${users.length} users${nested.length > 0 ? `, ${nested.length} nested groups` : ''}`],
    ...users.map((n) => ['member', `uid=user.${n},${names.people}`] as const),
    ...nested.map((child) => ['member', `cn=group.${child},${names.groups}`] as const),
  ]);
}

/** The entries, in an order an import can load (parents first). */
export function* makeEntries(options: MakeLdifOptions): Generator<Entry> {
  const random = new SeededRandom(options.seed);
  const people = `ou=People,${options.baseDn}`;
  const domain = mailDomain(options.baseDn);
  const groupCount = options.groups ?? 0;
  if (groupCount > 0 && options.users === 0) throw new Error('make-ldif needs at least one user for groups (groupOfNames must have a member)');
  yield baseEntry(options.baseDn);
  yield entry(people, [['objectClass', 'top'], ['objectClass', 'organizationalUnit'], ['ou', 'People']]);
  for (let n = 0; n < options.users; n += 1) {
    yield person(n, people, domain, random, options.password);
  }
  if (groupCount === 0) return;
  const groups = `ou=Groups,${options.baseDn}`;
  yield entry(groups, [['objectClass', 'top'], ['objectClass', 'organizationalUnit'], ['ou', 'Groups']]);
  const members = memberships(options.users, groupCount, random);
  for (let rank = 0; rank < groupCount; rank += 1) yield groupEntry(rank, members, { people, groups });
}
