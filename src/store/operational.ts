/** Operational attributes the store keeps: entryUUID, create/modify timestamps and names. */
import { randomUUID } from 'node:crypto';
import { withAttribute, hasAttribute, type Entry } from './entry.js';

/** GeneralizedTime as OpenLDAP writes it: YYYYMMDDHHMMSSZ in UTC. */
export function generalizedTime(date: Date = new Date()): string {
  return date.toISOString().replace(/[-:T]/g, '').replace(/\.\d+Z$/, 'Z');
}

/** Adds what a new entry lacks; values already present (from an LDIF export) are kept. */
export function withCreationAttributes(entry: Entry, actor: string, now: Date = new Date()): Entry {
  const time = Buffer.from(generalizedTime(now));
  const defaults: [string, Buffer][] = [
    ['entryUUID', Buffer.from(randomUUID())],
    ['creatorsName', Buffer.from(actor)],
    ['createTimestamp', time],
    ['modifiersName', Buffer.from(actor)],
    ['modifyTimestamp', time],
  ];
  let result = entry;
  for (const [name, value] of defaults) {
    if (!hasAttribute(result, name)) result = withAttribute(result, name, [value]);
  }
  return result;
}
