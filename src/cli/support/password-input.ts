/** Where a command gets a password from: the argument, a file, or standard input. */
import { readFile } from 'node:fs/promises';
import { CliError } from './errors.js';
import { errorCode } from '../../errors.js';

async function readStdin(): Promise<Buffer> {
  if (process.stdin.isTTY) {
    throw new CliError('no password given: pass it as an argument, with --password-file FILE, or on standard input');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** One trailing newline (\n or \r\n) is a line ending, not part of the password. */
function stripLineEnding(bytes: Buffer): Buffer {
  if (bytes.at(-1) !== 0x0a) return bytes;
  return bytes.subarray(0, bytes.at(-2) === 0x0d ? -2 : -1);
}

/**
 * The password bytes. An argument is taken as UTF-8; a file (or `-` for standard input) as
 * raw bytes less one line ending, so the password need not appear in `ps`.
 */
export async function readPassword(argument: string | undefined, file: string | undefined): Promise<Buffer> {
  if (argument !== undefined && file !== undefined) throw new CliError('give the password as an argument or with --password-file, not both');
  if (argument !== undefined) return Buffer.from(argument, 'utf8');
  if (file === undefined || file === '-') return stripLineEnding(await readStdin());
  try {
    return stripLineEnding(await readFile(file));
  } catch (error) {
    throw new CliError(`cannot read password file ${file}: ${errorCode(error) ?? String(error)}`);
  }
}
