/** The TLS options of `leveldap serve`: certificate and key read and checked before the server starts. */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import type { Argv } from 'yargs';
import type { TlsConfig } from '../../server/config.js';
import { CliError } from '../support/errors.js';
import { checkedPort } from './port.js';
import { errorMessage, errorCode } from '../../errors.js';

export interface TlsOptions {
  'tls-cert'?: string;
  'tls-key'?: string;
  'ldaps-port'?: number;
  'require-tls-for-binds': boolean;
}

export function withTlsOptions<T>(yargs: Argv<T>): Argv<T & TlsOptions> {
  return yargs
    .option('tls-cert', { type: 'string', requiresArg: true, describe: 'PEM certificate (chain) of the server: enables StartTLS' })
    .option('tls-key', { type: 'string', requiresArg: true, describe: 'PEM private key of --tls-cert (unencrypted)' })
    .option('ldaps-port', { type: 'number', requiresArg: true, describe: 'also listen for LDAPS on this port (0: any free port); needs --tls-cert' })
    .option('require-tls-for-binds', {
      type: 'boolean', default: false, describe: 'refuse binds with a password (13, confidentialityRequired) on connections without TLS',
    }) as Argv<T & TlsOptions>;
}

async function readPem(flag: string, file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new CliError(`cannot read ${flag} file ${file}: ${errorCode(error) ?? String(error)}`);
  }
}

/**
 * Loads the pair once, as the server will: a bad PEM or a key of another certificate fails here.
 * OpenSSL's context checks a key only against a certificate of its own type (an RSA key with an
 * EC certificate passes, and every handshake then fails), so the key is also checked against the
 * certificate (the chain's first) directly.
 */
function checkPair(cert: Buffer, key: Buffer, files: string): void {
  let belongs: boolean;
  try {
    createSecureContext({ cert, key });
    belongs = new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
  } catch (error) {
    throw new CliError(`cannot use ${files} for TLS: ${errorMessage(error)}`);
  }
  if (!belongs) throw new CliError(`cannot use ${files} for TLS: the key does not belong to the certificate`);
}

/** The server's TLS configuration, or undefined without --tls-cert; CliError for what cannot work. */
export async function tlsConfig(options: TlsOptions): Promise<TlsConfig | undefined> {
  const { 'tls-cert': certFile, 'tls-key': keyFile, 'ldaps-port': ldapsPort } = options;
  if ((certFile === undefined) !== (keyFile === undefined)) throw new CliError('--tls-cert and --tls-key go together: give both');
  if (certFile === undefined || keyFile === undefined) {
    if (ldapsPort !== undefined) throw new CliError('--ldaps-port needs --tls-cert and --tls-key');
    if (options['require-tls-for-binds']) throw new CliError('--require-tls-for-binds needs --tls-cert and --tls-key (else no password bind could succeed)');
    return undefined;
  }
  if (ldapsPort !== undefined) checkedPort(ldapsPort, '--ldaps-port');
  const [cert, key] = await Promise.all([readPem('--tls-cert', certFile), readPem('--tls-key', keyFile)]);
  checkPair(cert, key, `--tls-cert ${certFile} with --tls-key ${keyFile}`);
  return ldapsPort === undefined ? { cert, key } : { cert, key, ldapsPort };
}
