/**
 * The root DSE (base "" scope base): what this server is and supports. Like OpenLDAP, its
 * attributes are operational: a plain request returns objectClass, `+` or names return the rest.
 */
import { SUBSCHEMA_DN, type Entry } from '../../store/index.js';
import { MANAGE_DSA_IT_OID, PAGED_RESULTS_OID } from '../../protocol/index.js';
import type { SearchRequest } from '../../protocol/types.js';
import { answerWithEntry } from './single-entry.js';
import { supportedExtensions } from './extended.js';
import type { OperationContext, Reply } from '../context.js';

/** RFC 3673: `+` returns all operational attributes. */
const ALL_OPERATIONAL_ATTRIBUTES = '1.3.6.1.4.1.4203.1.5.1';

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
      { name: 'supportedControl', values: text(PAGED_RESULTS_OID, MANAGE_DSA_IT_OID) },
      { name: 'supportedFeatures', values: text(ALL_OPERATIONAL_ATTRIBUTES) },
      { name: 'supportedExtension', values: text(...supportedExtensions(config)) },
      { name: 'vendorName', values: text('leveldap') },
      { name: 'vendorVersion', values: text(vendorVersion) },
      { name: 'subschemaSubentry', values: text(SUBSCHEMA_DN) },
    ],
  };
}

/** objectClass is a user attribute of the root DSE; the rest are operational (their schema says so). */
export async function rootDse(request: SearchRequest, context: OperationContext): Promise<Reply> {
  return answerWithEntry(request, context, await rootDseEntry(context));
}
