/**
 * Reading group memberships from the keys groups.ts derives (keys.ts: g, r and memberof): the
 * groups naming an entry, directly or through nested groups (a group that is a member of
 * another); the groups below a group; the members of groups, as one sorted stream; and one
 * membership probed synchronously, for the filter evaluator.
 *
 * A walk through nested groups visits each group once (so cycles end) and expands at most
 * `maxGroups` groups (0: no limit); one that would expand more stops and says it is incomplete,
 * and its caller decides (a filter refuses the search, memberOf values are cut short).
 */
import type { Level } from 'level';
import {
  allMembershipsRange, dnKeyOfIndexKey, groupKey, groupOfMembershipKey, groupsRange, inSubtree, membersRange, membershipKey, membershipsRange,
  subtreeMembershipsRange,
} from './keys.js';
import { KeptIterators, type SeekIterator } from './kept-iterators.js';
import { StampedCache } from './stamped-cache.js';

type Db = Level<string, Buffer>;

/** Memberships read a trip to LevelDB's thread: an entry is in a few groups (make-ldif: 1 to 4). */
const MEMBERSHIPS_BATCH = 16;
/** Member keys read a trip to LevelDB's thread when listing a group's members (a search of memberOf=G). */
const MEMBERS_BATCH = 256;
/** What the cache of recent answers holds per thread: an answer counts one, and one more per group in it. */
const ANSWERS_CAPACITY = 32_768;
/** isMember answers kept per thread (about 200 bytes each). */
const PROBES_CAPACITY = 16_384;
/** Groups kept once for every answer naming them (their key and DN as read); emptied when past this. */
const GROUPS_KEPT = 4096;
/**
 * Member keys of the groups listed lately, kept per thread (about 150 bytes each): a search of
 * `(memberOf=G)` then reads no LevelDB key, and its members' keys are the same strings each time,
 * whose hash V8 keeps, for the record cache's lookups.
 */
const MEMBER_KEYS_KEPT = 65_536;

/** A group naming an entry: its dnKey and its DN as written. */
export interface Group {
  readonly key: string;
  readonly dn: string;
}

/** What a walk through nested groups found, and whether it got to the end. */
export interface Walked<T> {
  readonly found: T[];
  readonly complete: boolean;
}

/** Groups one walk may expand when nobody says: serve's --max-nested-groups default. */
export const DEFAULT_MAX_NESTED_GROUPS = 1000;

export class Memberships {
  /**
   * An entry's memberOf is read for every search that returns it: recent answers are kept per
   * thread while no write finishes (stamped-cache.ts, as the equality index's are), and read
   * through iterators kept between reads (kept-iterators.ts) when not.
   */
  private readonly answers: StampedCache<readonly Group[]>;
  /** Recent answers of isMember by membership key, per thread while no write finishes. */
  private readonly probes: StampedCache<boolean>;
  /** Recent groups' member lists, per thread while no write finishes. */
  private readonly memberLists: StampedCache<readonly string[]>;
  private readonly iterators: KeptIterators<[string, Buffer]>;
  private readonly groupsKept = new Map<string, Group>();
  /** Member keys read from LevelDB by `members`, since start. */
  readonly stats = { memberKeysRead: 0 };

  /** `settled`: the count of writes finished so far (WriteGate.settled), which kept answers and iterators go by. */
  constructor(private readonly db: Db, settled: () => number) {
    this.answers = new StampedCache(settled, ANSWERS_CAPACITY, (groups) => 1 + groups.length);
    this.probes = new StampedCache(settled, PROBES_CAPACITY);
    this.memberLists = new StampedCache(settled, MEMBER_KEYS_KEPT, (keys) => 1 + keys.length);
    this.iterators = new KeptIterators(() => db.iterator(allMembershipsRange()), settled);
  }

  /**
   * The groups naming the entry `member` (its dnKey) in one of their member values, in dnKey
   * order, as the database is now: a recent answer, or read through a kept iterator; `fresh`
   * (for a write): read through a new one.
   */
  async direct(member: string, fresh = false): Promise<Group[]> {
    if (fresh) {
      const range = membershipsRange(member);
      return this.read(range, this.db.iterator(range), true);
    }
    const kept = this.answers.get(member);
    if (kept) return kept.slice();
    const stamp = this.answers.begin();
    const lease = this.iterators.take();
    let ended = false;
    try {
      const groups = await this.read(membershipsRange(member), lease.iterator, false);
      ended = true;
      this.answers.keep(member, groups.slice(), stamp);
      return groups;
    } finally {
      this.iterators.give(lease, ended);
    }
  }

  /** The group of this key and DN, the same object for every answer naming it (kept answers take little room). */
  private group(key: string, dn: string): Group {
    const kept = this.groupsKept.get(key);
    if (kept?.dn === dn) return kept;
    if (this.groupsKept.size >= GROUPS_KEPT) this.groupsKept.clear();
    const group = { key, dn };
    this.groupsKept.set(key, group);
    return group;
  }

  /** The groups in `range` (a member's memberships), read from `iterator` (closed after when `close`). */
  private async read(range: { gte: string; lt: string }, iterator: SeekIterator<[string, Buffer]>, close: boolean): Promise<Group[]> {
    const groups: Group[] = [];
    try {
      iterator.seek(range.gte);
      for (;;) {
        const batch = await iterator.nextv(MEMBERSHIPS_BATCH);
        for (const [key, dn] of batch) {
          if (!key.startsWith(range.gte)) return groups;
          groups.push(this.group(groupOfMembershipKey(key), dn.toString('utf8')));
        }
        if (batch.length < MEMBERSHIPS_BATCH) return groups;
      }
    } finally {
      if (close) await iterator.close();
    }
  }

  /** The dnKeys of the groups outside the subtree of `key` naming the entry `key` or any DN below it (for a subtree rename). */
  async namingSubtree(key: string): Promise<Set<string>> {
    const groups = new Set<string>();
    for await (const membership of this.db.keys(subtreeMembershipsRange(key))) {
      const group = groupOfMembershipKey(membership);
      if (!inSubtree(group, key)) groups.add(group);
    }
    return groups;
  }

  /**
   * The groups of the entry `member`: those naming it, and with `nested` the groups naming
   * those, and so on, nearest first; never the entry itself.
   */
  async groupsOf(member: string, nested: boolean, maxGroups: number): Promise<Walked<Group>> {
    const found = await this.direct(member);
    if (!nested) return { found, complete: true };
    const seen = new Set([member, ...found.map((group) => group.key)]);
    for (let next = 0; next < found.length; next += 1) {
      if (maxGroups > 0 && next >= maxGroups) return { found, complete: false };
      for (const group of await this.direct(found[next]!.key)) {
        if (seen.has(group.key)) continue;
        seen.add(group.key);
        found.push(group);
      }
    }
    return { found, complete: true };
  }

  /** The dnKeys of every group. */
  async groups(): Promise<Set<string>> {
    const keys = new Set<string>();
    for await (const key of this.db.keys(groupsRange())) keys.add(key.slice(2));
    return keys;
  }

  /** Whether the entry `key` is a group. */
  isGroup(key: string): boolean {
    return this.db.getSync(groupKey(key)) !== undefined;
  }

  /**
   * The group `group` (a dnKey) and the groups among its members, theirs, and so on: every
   * group whose members are members of `group` through nesting. The group itself comes first,
   * even when it is not a group (it then has no members).
   */
  async groupsBelow(group: string, maxGroups: number): Promise<Walked<string>> {
    const found = [group];
    const all = await this.groups();
    const seen = new Set(found);
    for (let next = 0; next < found.length; next += 1) {
      if (maxGroups > 0 && next >= maxGroups) return { found, complete: false };
      for await (const key of this.db.keys(membersRange(found[next]!))) {
        const member = dnKeyOfIndexKey(key);
        if (!all.has(member) || seen.has(member)) continue;
        seen.add(member);
        found.push(member);
      }
    }
    return { found, complete: true };
  }

  /**
   * Does the group `group` name the entry `member` (dnKeys)? Read synchronously, for filters
   * (`(&(uid=N)(memberOf=G))`, an authorization check asked again and again): recent answers kept
   * per thread while no write finishes.
   */
  isMember(member: string, group: string): boolean {
    const key = membershipKey(member, group);
    const kept = this.probes.get(key);
    if (kept !== undefined) return kept;
    const stamp = this.probes.begin();
    const named = this.db.getSync(key) !== undefined;
    this.probes.keep(key, named, stamp);
    return named;
  }

  /** A group's members: the list kept from a listing since the last write, else a read of its range (kept once read whole). */
  private run(group: string): Run {
    const kept = this.memberLists.get(group);
    if (kept !== undefined) return new Run(keptBatches(kept));
    const stamp = this.memberLists.begin();
    return new Run(new RangeBatches(this.db.keys(membersRange(group)), (keys) => this.memberLists.keep(group, keys, stamp), this.stats));
  }

  /**
   * The dnKeys of the direct members of any of `groups`, each once, in dnKey order (a merge of
   * their memberof ranges), in batches: each range is read MEMBERS_BATCH keys a trip (none for a
   * group listed since the last write).
   */
  async *members(groups: readonly string[]): AsyncGenerator<string[]> {
    const runs = groups.map((group) => this.run(group));
    try {
      const heads = new Heads();
      for (const run of runs) if (await run.fill()) heads.push(run);
      let batch: string[] = [];
      let last: string | undefined;
      for (let run = heads.pop(); run !== undefined; run = heads.pop()) {
        const key = run.take();
        if (key !== last) batch.push(key);
        last = key;
        if (run.more() || (await run.fill())) heads.push(run);
        if (batch.length < MEMBERS_BATCH) continue;
        yield batch;
        batch = [];
      }
      if (batch.length > 0) yield batch;
    } finally {
      await Promise.all(runs.map((run) => run.close()));
    }
  }
}

/** A group's member dnKeys in batches, an empty one at the end. */
interface MemberBatches {
  next(): Promise<readonly string[]>;
  close(): Promise<void>;
}

/** A kept member list, as one batch. */
function keptBatches(keys: readonly string[]): MemberBatches {
  let given = false;
  return {
    next: async () => {
      if (given) return [];
      given = true;
      return keys;
    },
    close: async () => undefined,
  };
}

/** A group's memberof range read MEMBERS_BATCH keys a trip; the list is handed to `keep` once read to its end. */
class RangeBatches implements MemberBatches {
  /** Every key read so far, while the list may still be kept. */
  private read: string[] | undefined = [];

  constructor(private readonly iterator: SeekIterator<string>, private readonly keep: (keys: readonly string[]) => void, private readonly stats: { memberKeysRead: number }) {}

  async next(): Promise<readonly string[]> {
    const keys = (await this.iterator.nextv(MEMBERS_BATCH)).map(dnKeyOfIndexKey);
    this.stats.memberKeysRead += keys.length;
    this.remember(keys);
    return keys;
  }

  close(): Promise<void> {
    return this.iterator.close();
  }

  /** Gathers a batch read (none: the end, and the list read whole is kept), unless the list grew past what is kept. */
  private remember(keys: readonly string[]): void {
    if (this.read === undefined) return;
    if (keys.length === 0) this.keep(this.read);
    else if (this.read.length + keys.length > MEMBER_KEYS_KEPT) this.read = undefined;
    else this.read.push(...keys);
  }
}

/** One group's member dnKeys as the merge in `members` takes them, a batch in hand at a time. */
class Run {
  private keys: readonly string[] = [];
  private at = 0;

  constructor(private readonly batches: MemberBatches) {}

  /** The next member, not taken yet. */
  get head(): string {
    return this.keys[this.at]!;
  }

  take(): string {
    return this.keys[this.at++]!;
  }

  /** Whether a read member is left to take. */
  more(): boolean {
    return this.at < this.keys.length;
  }

  /** Takes the next batch in hand; false when the group's members have ended. */
  async fill(): Promise<boolean> {
    this.keys = await this.batches.next();
    this.at = 0;
    return this.keys.length > 0;
  }

  close(): Promise<void> {
    return this.batches.close();
  }
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** LevelDB's order of keys (by UTF-8 bytes, so by code point), which UTF-16's `<` differs from past the BMP. */
function precedes(a: string, b: string): boolean {
  return SURROGATE.test(a) || SURROGATE.test(b) ? Buffer.compare(Buffer.from(a), Buffer.from(b)) < 0 : a < b;
}

/** A binary min-heap of runs by their next member: the merge in `members`. */
class Heads {
  private readonly heap: Run[] = [];

  push(run: Run): void {
    this.heap.push(run);
    this.up(this.heap.length - 1);
  }

  pop(): Run | undefined {
    const top = this.heap[0];
    const last = this.heap.pop();
    if (top !== undefined && last !== undefined && this.heap.length > 0) {
      this.heap[0] = last;
      this.down(0);
    }
    return top;
  }

  private less(a: number, b: number): boolean {
    return precedes(this.heap[a]!.head, this.heap[b]!.head);
  }

  private swap(a: number, b: number): void {
    [this.heap[a], this.heap[b]] = [this.heap[b]!, this.heap[a]!];
  }

  private up(index: number): void {
    for (let i = index; i > 0 && this.less(i, (i - 1) >> 1); i = (i - 1) >> 1) this.swap(i, (i - 1) >> 1);
  }

  private down(index: number): void {
    for (let i = index; ;) {
      const left = 2 * i + 1;
      const smallest = [left, left + 1].filter((child) => child < this.heap.length).reduce((best, child) => (this.less(child, best) ? child : best), i);
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }
}
