/**
 * The root DSE (base "" scope base): what this server is and supports. Like OpenLDAP, its
 * attributes are operational: a plain request returns objectClass, `+` or names return the rest.
 * supportedControl is every control some operation acts on (controls.ts); with the assertion
 * control, the root DSE must match it (assertionFailed).
 */
import { SUBSCHEMA_DN, type Entry } from '../../store/index.js';
import type { SearchRequest } from '../../protocol/types.js';
import { answerWithEntry } from './single-entry.js';
import { supportedExtensions } from './extended.js';
import type { OperationContext, Reply } from '../context.js';
import { supportedControls } from '../controls.js';
import { MONITOR_DN } from '../monitor/tree.js';

/** supportedFeatures (RFC 4512 5.1.5): what the server does that has a feature OID. */
const SUPPORTED_FEATURES = [
  '1.3.6.1.4.1.4203.1.5.1', // RFC 3673: `+` returns all operational attributes
  '1.3.6.1.1.14', // RFC 4525: modify-increment
];

const text = (...values: string[]) => values.map((value) => Buffer.from(value, 'utf8'));

async function rootDseEntry(context: OperationContext): Promise<Entry> {
  const { store, config, vendorVersion } = context.server;
  const contexts = new Set([...(await store.suffixes()), config.baseDn]);
  return {
    dn: '',
    attributes: [
      { name: 'objectClass', values: text('top', 'extensibleObject') },
      { name: 'namingContexts', values: text(...contexts) },
      { name: 'supportedLDAPVersion', values: text('3') },
      { name: 'supportedControl', values: text(...supportedControls()) },
      { name: 'supportedFeatures', values: text(...SUPPORTED_FEATURES) },
      { name: 'supportedExtension', values: text(...supportedExtensions(config)) },
      { name: 'vendorName', values: text('leveldap') },
      { name: 'vendorVersion', values: text(vendorVersion) },
      { name: 'subschemaSubentry', values: text(SUBSCHEMA_DN) },
      { name: 'monitorContext', values: text(MONITOR_DN) },
    ],
  };
}

/** objectClass is a user attribute of the root DSE; the rest are operational (their schema says so). */
export async function rootDse(request: SearchRequest, context: OperationContext): Promise<Reply> {
  return answerWithEntry(request, context, await rootDseEntry(context));
}
