/**
 * One LDAP connection used one request at a time, over the raw socket of ldap-client.ts and the
 * requests of ldap-requests.ts: each call answers the result code (and a search the DNs it
 * returned), fast enough to poll with (no process per request, as the OpenLDAP tools need).
 */
import assert from 'node:assert/strict';
import { Op, RawConnection, type Response } from './ldap-client.js';
import { addRequest, bindRequest, deleteRequest, exchange, modifyRequest, searchRequest, type ChangeSpec, type FilterSpec } from './ldap-requests.js';

export interface SearchResult {
  readonly code: number;
  readonly dns: string[];
}

export class LdapSession {
  private lastId = 0;

  private constructor(private readonly connection: RawConnection) {}

  /** A connection to 127.0.0.1:port, bound as `as` when given (which must succeed). */
  static async open(port: number, as?: { readonly dn: string; readonly password: string }): Promise<LdapSession> {
    const session = new LdapSession(await RawConnection.open(port));
    if (as) assert.equal(await session.bind(as.dn, as.password), 0, `bind as ${as.dn} on port ${port}`);
    return session;
  }

  /** Whether the server closed the connection. */
  get closed(): boolean {
    return this.connection.closed;
  }

  bind(dn: string, password: string): Promise<number> {
    return this.code((id) => bindRequest(id, dn, password));
  }

  modify(dn: string, changes: readonly ChangeSpec[]): Promise<number> {
    return this.code((id) => modifyRequest(id, dn, changes));
  }

  add(dn: string, attributes: Readonly<Record<string, readonly string[]>>): Promise<number> {
    return this.code((id) => addRequest(id, dn, Object.entries(attributes)));
  }

  delete(dn: string): Promise<number> {
    return this.code((id) => deleteRequest(id, dn));
  }

  async search(base: string, scope: 'base' | 'one' | 'sub' = 'base', filter: FilterSpec = { present: 'objectClass' }): Promise<SearchResult> {
    const responses = await this.request((id) => searchRequest(id, base, { scope, filter }));
    const done = responses.at(-1)!;
    return { code: done.code!, dns: responses.filter((response) => response.op === Op.searchEntry).map((response) => response.dn!) };
  }

  /** Whether the entry exists (a base search answering 0; 32 when it does not, anything else throws). */
  async exists(dn: string): Promise<boolean> {
    const { code } = await this.search(dn);
    if (code !== 0 && code !== 32) throw new Error(`a search for ${dn} answered ${code}`);
    return code === 0;
  }

  close(): void {
    this.connection.destroy();
  }

  private async code(frame: (id: number) => Buffer): Promise<number> {
    return (await this.request(frame)).at(-1)!.code!;
  }

  /** Sends one request and waits for its final response; every response to it, in order (throws if the connection closed first). */
  private async request(frame: (id: number) => Buffer): Promise<Response[]> {
    const id = (this.lastId += 1);
    await exchange(this.connection, id, frame(id));
    return this.connection.responses.splice(0).filter((response) => response.messageId === id);
  }
}
