/** `leveldap serve`: the LDAP server. Not built yet (issue 4); says so instead of pretending. */
import type { CommandModule } from 'yargs';
import { CliError } from '../errors.js';

export const serveCommand: CommandModule = {
  command: 'serve',
  describe: 'run the LDAP server (not implemented yet)',
  handler: () => {
    throw new CliError('serve is not implemented yet: the server lands with issue 4 (see README)');
  },
};
