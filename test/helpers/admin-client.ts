/** A running leveldap server with its admin's credentials, and OpenLDAP's command-line tools run as that admin. */
import type { RunResult } from '../../src/harness/run.js';
import { ldapTool, type Credentials } from './ldap-client.js';
import type { LeveldapServer } from './leveldap-server.js';

export interface AdminClient {
  readonly server: LeveldapServer;
  readonly admin: Credentials;
}

export function adminClient(server: LeveldapServer): AdminClient {
  return { server, admin: { dn: server.adminDn, passwordFile: server.adminPasswordFile } };
}

/** Runs `name` (ldapsearch, ldapmodify, ...) against the server, bound as its admin. */
export function adminTool({ server, admin }: AdminClient, name: string, args: readonly string[], input?: string): Promise<RunResult> {
  return ldapTool(name, server.url, args, admin, input);
}
