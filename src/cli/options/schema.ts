/** --schema FILE (repeatable) and --no-schema-check: the schema files loaded on top of the built-in ones. */
import type { Argv } from 'yargs';
import { buildSchema, installSchema, SchemaError, SchemaSyntaxError } from '../../store/index.js';
import { errorCode, errorMessage } from '../../errors.js';
import { CliError } from '../support/errors.js';

export interface SchemaOptions {
  schema?: string[];
}

export function withSchemaFileOption<T>(yargs: Argv<T>): Argv<T & SchemaOptions> {
  return yargs.option('schema', {
    type: 'string', array: true, requiresArg: true,
    describe: 'load attribute types and object classes from this file (OpenLDAP .schema or olc LDIF form; repeatable, in order)',
  }) as Argv<T & SchemaOptions>;
}

/**
 * Builds the built-in schema plus `files` and puts it in force in this thread; a file that does
 * not load stops the command with the file, the line and the reason.
 */
export function installSchemaFiles(files: readonly string[]): void {
  try {
    installSchema(buildSchema(files));
  } catch (error) {
    if (error instanceof SchemaSyntaxError || error instanceof SchemaError) throw new CliError(`schema: ${error.message}`);
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'EACCES') throw new CliError(`--schema: cannot read ${errorMessage(error).replace(/^.*?'(.*)'.*$/, '$1')} (${errorCode(error)})`);
    throw error;
  }
}
