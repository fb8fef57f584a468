/** An error the user made on the command line: printed without a stack, exit status 2. */
export class CliError extends Error {
  override name = 'CliError';
}
