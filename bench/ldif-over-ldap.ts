/**
 * Loads the entries of an LDIF file into a running server through LDAP adds, as the admin, on C
 * connections at once (bench-scale-out fills a PostgreSQL store this way, through its first
 * node). An entry is sent once the add of its parent, when the file holds the parent, has been
 * answered, so a file in the usual parents-first order loads whatever the concurrency. Any
 * result but success stops the load with the entry's DN and the result code.
 */
import { createReadStream } from 'node:fs';
import { LdapConnection, type Endpoint } from '../src/authrate/connection.js';
import { readLdif, type LdifRecord } from '../src/ldif/index.js';
import { toEntry } from '../src/ldif/import-plan.js';
import { normalizeDn, parseDn } from '../src/store/index.js';

export interface Admin {
  readonly dn: string;
  readonly password: string;
}

export interface AddLoad {
  readonly entries: number;
  readonly seconds: number;
}

/** A plain-TCP endpoint on this host. */
export const local = (port: number): Endpoint => ({ host: '127.0.0.1', port, useSsl: false, useStartTls: false, trustAll: false });

/** A connection bound as the admin. */
export async function adminConnection(port: number, admin: Admin): Promise<LdapConnection> {
  const connection = await LdapConnection.open(local(port));
  const code = await connection.bind(admin.dn, Buffer.from(admin.password));
  if (code !== 0) {
    connection.destroy();
    throw new Error(`the admin bind (${admin.dn}) to port ${port} failed: result code ${code}`);
  }
  return connection;
}

/** Adds one record once its parent's add (if one was sent) has succeeded; `sent` maps normalized DNs to their adds. */
function addRecord(connection: LdapConnection, record: LdifRecord, sent: Map<string, Promise<void>>): Promise<void> {
  const entry = toEntry(record);
  const dn = parseDn(entry.dn);
  const parent = sent.get(normalizeDn(dn.slice(1)));
  const added = (async () => {
    await parent;
    const code = await connection.add(entry.dn, entry.attributes);
    if (code !== 0) throw new Error(`adding ${entry.dn} failed: result code ${code}`);
  })();
  sent.set(normalizeDn(dn), added);
  return added;
}

/** Adds every entry of `file` through `connections` admin connections to `port`. */
export async function addLdif(file: string, port: number, admin: Admin, connections: number): Promise<AddLoad> {
  const records = readLdif(createReadStream(file));
  const sent = new Map<string, Promise<void>>();
  const started = performance.now();
  let entries = 0;
  const worker = async (): Promise<void> => {
    const connection = await adminConnection(port, admin);
    try {
      for (let next = await records.next(); !next.done; next = await records.next()) {
        await addRecord(connection, next.value, sent);
        entries += 1;
      }
    } finally {
      connection.unbindAndClose();
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  return { entries, seconds: (performance.now() - started) / 1000 };
}
