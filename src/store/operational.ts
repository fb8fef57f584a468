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
  const time = currentTime(now);
  const defaults: Attribute[] = [
    { name: 'entryUUID', values: [Buffer.from(randomUUID())] },
    { name: 'creatorsName', values: [Buffer.from(actor)] },
    { name: 'createTimestamp', values: [time] },
    { name: 'modifiersName', values: [Buffer.from(actor)] },
    { name: 'modifyTimestamp', values: [time] },
  ];
  const missing = defaults.filter((attribute) => !present.has(typeKey(attribute.name)));
  return missing.length === 0 ? entry : { dn: entry.dn, attributes: [...entry.attributes, ...missing] };
}

const MODIFICATION_ATTRIBUTES = new Set(['modifiersname', 'modifytimestamp']);

/** The entry after a change by `actor`: modifiersName and modifyTimestamp replaced. */
export function withModificationAttributes(entry: Entry, actor: string, now: Date = new Date()): Entry {
  const kept = entry.attributes.filter((attribute) => !MODIFICATION_ATTRIBUTES.has(typeKey(attribute.name)));
  return {
    dn: entry.dn,
    attributes: [...kept, { name: 'modifiersName', values: [Buffer.from(actor)] }, { name: 'modifyTimestamp', values: [currentTime(now)] }],
  };
}
