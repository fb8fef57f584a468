/**
 * userPassword on the way in (add, modify, password modify): a plain password must meet the
 * policy's quality rules (at least --min-password-length characters; not the password the entry
 * has now, checked under the entry's lock by refuseCurrentPassword) and is hashed with the
 * default scheme (--default-scheme, --default-iterations); a value already in a registered
 * {SCHEME} is kept, from the admin only (anyone else: constraintViolation, so that nobody but the
 * admin can plant a weak or copied hash), and skips the quality rules (a hash cannot be
 * inspected); an unknown {SCHEME}, an empty value or a hash this server could not verify (e.g.
 * above --max-iterations) is refused. A non-admin sets one value in a whole operation (however
 * many changes carry them), so one request cannot queue thousands of costly hashes, and its
 * entry holds one value at most, so a bind never has many of its values to verify.
 */
import { generalizedTime, DirectoryError, typeKey, values, type Entry, type Modification, type Rdn } from '../store/index.js';
import type { ServerContext } from './context.js';
import type { Identity } from './access.js';
import { verifiedValues } from '../policy/verified-values.js';

function refuse(message: string): DirectoryError {
  return new DirectoryError('constraintViolation', `userPassword: ${message}`);
}

async function storedForm(value: Buffer, writer: Identity, server: ServerContext): Promise<Buffer> {
  if (value.byteLength === 0) throw refuse('an empty password cannot be set');
  const text = value.toString('utf8');
  const found = server.registry.classify(text);
  if (found.kind === 'plain') {
    checkLength(text, server.policy.settings.minPasswordLength);
    return Buffer.from(await server.registry.encode(server.defaultScheme, value, server.policy.defaultParams), 'utf8');
  }
  if (found.kind === 'unknown') throw refuse(`unknown password scheme {${found.name}}`);
  if (!writer.isAdmin) {
    throw refuse(`a value already hashed ({${found.scheme.names[0]}}) is accepted from the admin only; send the password in plain text`);
  }
  const problem = server.registry.unverifiable(text);
  if (problem) throw refuse(problem);
  return value;
}

/** No plain-text password longer than this is stored: hashing cost and storage stay bounded whatever the scheme. */
const MAX_PASSWORD_BYTES = 4096;

/** Quality: a new plain-text password has at least `min` characters (Unicode code points), and at most MAX_PASSWORD_BYTES bytes. */
function checkLength(text: string, min: number): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_PASSWORD_BYTES) throw refuse(`the new password is too long: ${bytes} bytes, at most ${MAX_PASSWORD_BYTES}`);
  const length = [...text].length;
  if (length < min) throw refuse(`the new password is too short: ${length} characters, the password policy asks for at least ${min}`);
}

/** The plain-text passwords among userPassword values a client writes (a hashed value cannot be inspected). */
export function plainPasswords(written: readonly Buffer[], server: ServerContext): Buffer[] {
  return written.filter((value) => value.byteLength > 0 && server.registry.classify(value.toString('utf8')).kind === 'plain');
}

/** Does the password match one of the entry's userPassword values (those a bind verifies)? */
export async function matchesCurrent(entry: Entry, password: Buffer, server: ServerContext): Promise<boolean> {
  for (const stored of verifiedValues(values(entry, 'userPassword'))) {
    if ((await server.registry.verify(password, stored.toString('utf8'))).status === 'match') return true;
  }
  return false;
}

/** Quality: refuses (19) a new password equal to one the entry has now. Call it under the entry's lock (a write's check). */
export async function refuseCurrentPassword(entry: Entry, plain: readonly Buffer[], server: ServerContext): Promise<void> {
  for (const password of plain) {
    if (await matchesCurrent(entry, password, server)) throw refuse('the new password is the same as the current one; choose another');
  }
}

const ONE_AT_A_TIME = 'only one password value may be set at a time';

/** A non-admin's write: at most one userPassword value over all the changes (before anything is hashed). */
export function refuseManyPasswords(changes: readonly Modification[], writer: Identity): void {
  if (writer.isAdmin) return;
  let count = 0;
  for (const change of changes) {
    if ((change.op === 'add' || change.op === 'replace') && typeKey(change.attribute) === 'userpassword') count += change.values.length;
  }
  if (count > 1) throw refuse(ONE_AT_A_TIME);
}

/** A non-admin's entry after a write that set a password: one userPassword value at most (OpenLDAP ppolicy's words). */
export function refuseSecondPassword(after: Entry, writer: Identity): void {
  if (!writer.isAdmin && values(after, 'userPassword').length > 1) throw refuse('password policy only allows one password value');
}

/** The values to store for userPassword values a client writes (in the same order). */
export async function passwordsToStore(values: readonly Buffer[], writer: Identity, server: ServerContext): Promise<Buffer[]> {
  if (!writer.isAdmin && values.length > 1) throw refuse(ONE_AT_A_TIME);
  return Promise.all(values.map((value) => storedForm(value, writer, server)));
}

/** The values to store for an attribute a client writes: userPassword's through {@link passwordsToStore}, others as they are. */
export function valuesToStore(attribute: string, values: readonly Buffer[], writer: Identity, server: ServerContext): readonly Buffer[] | Promise<Buffer[]> {
  return typeKey(attribute) === 'userpassword' ? passwordsToStore(values, writer, server) : values;
}

/**
 * What a password change writes beside the password, as ppolicy does: pwdChangedTime, and the
 * failed binds' records removed (failures against the old password do not count against the
 * new one). `touched`: the types the request itself writes, left as it writes them.
 */
export function passwordChangeRecords(now: Date, touched: ReadonlySet<string> = new Set()): Modification[] {
  const records: Modification[] = [
    { op: 'replace', attribute: 'pwdChangedTime', values: [Buffer.from(generalizedTime(now))] },
    { op: 'replace', attribute: 'pwdFailureTime', values: [] },
  ];
  return records.filter((record) => !touched.has(typeKey(record.attribute)));
}

/**
 * A password may not name an entry: an RDN's value is the entry's too, so it would be stored as
 * written (never hashed, never checked against the quality rules), and a DN is readable by
 * anyone who can see the entry. OpenLDAP takes it; leveldap refuses it (unwillingToPerform).
 */
export function refusePasswordInRdn(rdn: Rdn): void {
  if (rdn.some((ava) => typeKey(ava.type) === 'userpassword')) {
    throw new DirectoryError('unwillingToPerform', 'userPassword may not be a naming attribute: in a DN it would be stored in clear, readable by anyone');
  }
}
