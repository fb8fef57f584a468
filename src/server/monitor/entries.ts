/** The parts cn=Monitor's entries are made of (tree.ts, own-entries.ts): names, attributes, the entry shapes OpenLDAP's back-monitor uses. */
import { generalizedTime, type Attribute, type Entry } from '../../store/index.js';

export const MONITOR_DN = 'cn=Monitor';
export const MONITOR_KEY = 'cn=monitor';

const text = (...values: (string | number)[]): Buffer[] => values.map((value) => Buffer.from(String(value), 'utf8'));
export const attribute = (name: string, ...values: (string | number)[]): Attribute => ({ name, values: text(...values) });
export const time = (millis: number): string => generalizedTime(new Date(millis));

export function entry(dn: string, objectClass: string, ...attributes: Attribute[]): Entry {
  const comma = dn.indexOf(',');
  const cn = dn.slice(3, comma === -1 ? undefined : comma);
  return { dn, attributes: [attribute('objectClass', objectClass), attribute('cn', cn), ...attributes] };
}

export const under = (rdn: string, parent: string) => `cn=${rdn},${parent}`;

export function container(name: string, description: string, ...attributes: Attribute[]): Entry {
  return entry(under(name, MONITOR_DN), 'monitorContainer', attribute('description', description), ...attributes);
}

export function counter(name: string, parent: string, value: number, ...attributes: Attribute[]): Entry {
  return entry(under(name, parent), 'monitorCounterObject', attribute('monitorCounter', value), ...attributes);
}

export function info(name: string, parent: string, value: string | number, description?: string): Entry {
  return entry(under(name, parent), 'monitoredObject', attribute('monitoredInfo', value), ...(description ? [attribute('description', description)] : []));
}
