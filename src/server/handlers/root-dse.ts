/**
 * The root DSE (base "" scope base): what this server is and supports. Like OpenLDAP, its
 * attributes are operational: a plain request returns objectClass, `+` or names return the rest.
 * supportedControl is every control some operation acts on (controls.ts); with the assertion
 * control, the root DSE must match it (assertionFailed).
 */
import { DirectoryError, typeKey } from '../../store/index.js';
import { ResultCode, encodeSearchEntry } from '../../protocol/index.js';
import { matches } from '../filter/index.js';
import type { SearchRequest } from '../../protocol/types.js';
import { parseSelection } from '../attributes.js';
import { supportedExtensions } from './extended.js';
import type { OperationContext, Reply } from '../context.js';
import { supportedControls } from '../controls.js';
import { assertionOf } from '../assertion.js';

/** supportedFeatures (RFC 4512 5.1.5): what the server does that has a feature OID. */
const SUPPORTED_FEATURES = [
  '1.3.6.1.4.1.4203.1.5.1', // RFC 3673: `+` returns all operational attributes
  '1.3.6.1.1.14', // RFC 4525: modify-increment
];


const text = (...values: string[]) => values.map((value) => Buffer.from(value, 'utf8'));

async function rootDseEntry(context: OperationContext) {
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
    ],
  };
}

/** objectClass is a user attribute of the root DSE; the rest are operational. */
function wanted(name: string, selection: ReturnType<typeof parseSelection>): boolean {
  const key = typeKey(name);
  if (selection.named.has(key)) return true;
  return key === 'objectclass' ? selection.allUser : selection.allOperational;
}

export async function rootDse(request: SearchRequest, context: OperationContext): Promise<Reply> {
  const assertion = assertionOf(request);
  const entry = await rootDseEntry(context);
  if (assertion && matches(assertion, entry) !== true) throw new DirectoryError('assertionFailed', '');
  if (matches(request.filter, entry) !== true) return { code: ResultCode.success, entries: 0 };
  const selection = parseSelection(request.attributes);
  const attributes = entry.attributes.filter((attribute) => wanted(attribute.name, selection))
    .map((attribute) => (request.typesOnly ? { name: attribute.name, values: [] } : attribute));
  await context.send(encodeSearchEntry(request.messageId, '', attributes));
  return { code: ResultCode.success, entries: 1 };
}
