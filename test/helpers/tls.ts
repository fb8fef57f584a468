/**
 * A throwaway certificate authority and a server certificate signed by it, made at test time
 * with the `openssl` command (no private key is ever committed). The server certificate names
 * `localhost` and `127.0.0.1`, so clients that check the host name (OpenLDAP's, Node's) accept
 * it when told to trust the CA (`LDAPTLS_CACERT=ca`, or `ca` in `tls.connect`).
 */
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from '../../src/harness/run.js';

/** Paths of PEM files in the directory given. */
export interface TestCertificate {
  /** The server certificate. */
  readonly cert: string;
  /** Its private key (mode 0600). */
  readonly key: string;
  /** The CA certificate that signed it: what clients trust. */
  readonly ca: string;
}

const DAYS = '2';

async function openssl(args: readonly string[]): Promise<void> {
  const result = await run('openssl', args);
  if (result.code !== 0) throw new Error(`openssl ${args[0]} exited with ${result.code}: ${result.stderr}`);
}

const newKey = (file: string) => openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file]);

/** Writes ca.pem, ca-key.pem, server.pem, server-key.pem and server.ext into `dir` (which must exist). */
export async function makeTestCertificate(dir: string): Promise<TestCertificate> {
  const ca = join(dir, 'ca.pem');
  const caKey = join(dir, 'ca-key.pem');
  const cert = join(dir, 'server.pem');
  const key = join(dir, 'server-key.pem');
  const csr = join(dir, 'server.csr');
  const extensions = join(dir, 'server.ext');
  await Promise.all([newKey(caKey), newKey(key)]);
  await Promise.all([chmod(caKey, 0o600), chmod(key, 0o600)]);
  await openssl(['req', '-x509', '-new', '-key', caKey, '-days', DAYS, '-subj', '/CN=leveldap test CA', '-out', ca,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  await openssl(['req', '-new', '-key', key, '-subj', '/CN=localhost', '-out', csr]);
  await writeFile(extensions, [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=serverAuth',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '',
  ].join('\n'));
  await openssl(['x509', '-req', '-in', csr, '-CA', ca, '-CAkey', caKey, '-CAcreateserial', '-days', DAYS,
    '-extfile', extensions, '-out', cert]);
  return { cert, key, ca };
}
