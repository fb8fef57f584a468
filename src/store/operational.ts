/** Operational attributes the store keeps: entryUUID, create/modify timestamps and names. */
import { randomUUID } from 'node:crypto';
import type { Attribute, Entry } from './entry.js';
import { typeKey } from './schema.js';
import { generalizedTime } from './time.js';

/** The current second's GeneralizedTime, formatted once per second. */
let lastSecond = -1;
let lastTime = Buffer.alloc(0);

function currentTime(now: Date): Buffer {
  const second = Math.floor(now.getTime() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastTime = Buffer.from(generalizedTime(now));
  }
  return lastTime;
}

/** Adds what a new entry lacks; values already present (from an LDIF export) are kept. */
export function withCreationAttributes(entry: Entry, actor: string, now: Date = new Date()): Entry {
  const present = new Set(entry.attributes.map((attribute) => typeKey(attribute.name)));
  const missing: Attribute[] = [];
  for (const [name, key, value] of CREATION_DEFAULTS) {
    if (!present.has(key)) missing.push({ name, values: [value(actor, now)] });
  }
  return missing.length === 0 ? entry : { dn: entry.dn, attributes: [...entry.attributes, ...missing] };
}

/** What a new entry is given when it lacks it, in this order: name, type key, value. */
const CREATION_DEFAULTS: readonly (readonly [string, string, (actor: string, now: Date) => Buffer])[] = [
  ['entryUUID', 'entryuuid', () => Buffer.from(randomUUID())],
  ['creatorsName', 'creatorsname', (actor) => Buffer.from(actor)],
  ['createTimestamp', 'createtimestamp', (_actor, now) => currentTime(now)],
  ['modifiersName', 'modifiersname', (actor) => Buffer.from(actor)],
  ['modifyTimestamp', 'modifytimestamp', (_actor, now) => currentTime(now)],
];

const MODIFICATION_ATTRIBUTES = new Set(['modifiersname', 'modifytimestamp']);

/** The entry after a change by `actor`: modifiersName and modifyTimestamp replaced. */
export function withModificationAttributes(entry: Entry, actor: string, now: Date = new Date()): Entry {
  const kept = entry.attributes.filter((attribute) => !MODIFICATION_ATTRIBUTES.has(typeKey(attribute.name)));
  return {
    dn: entry.dn,
    attributes: [...kept, { name: 'modifiersName', values: [Buffer.from(actor)] }, { name: 'modifyTimestamp', values: [currentTime(now)] }],
  };
}
