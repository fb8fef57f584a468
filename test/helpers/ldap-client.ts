/**
 * Clients for server tests: the OpenLDAP command-line tools (ldapsearch, ldapwhoami, ...) with
 * passwords passed in 0600 files, a small LDIF reader for their output, and a raw TCP
 * connection that reads LDAP responses with its own minimal BER parser (independent of the
 * server's codec).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, type RunResult } from '../../src/harness/run.js';

export interface Credentials {
  readonly dn: string;
  /** Written to a 0600 file for -y (so '' makes an empty file), unless passwordFile is given. */
  readonly password?: string;
  readonly passwordFile?: string;
}

/** Runs `tool -x -H url [-D dn -y file] ...args`. */
export async function ldapTool(tool: string, url: string, args: readonly string[], as?: Credentials, input?: string): Promise<RunResult> {
  if (!as) return run(tool, ['-x', '-H', url, ...args], input);
  if (as.passwordFile !== undefined) return run(tool, ['-x', '-H', url, '-D', as.dn, '-y', as.passwordFile, ...args], input);
  const dir = await mkdtemp(join(tmpdir(), 'leveldap-client-'));
  try {
    const file = join(dir, 'password');
    await writeFile(file, as.password ?? '', { mode: 0o600 });
    return await run(tool, ['-x', '-H', url, '-D', as.dn, '-y', file, ...args], input);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface LdifEntry {
  readonly dn: string;
  /** Attribute values by the name as printed (case kept), in order. */
  readonly attributes: ReadonlyMap<string, string[]>;
}

/** The records of ldapsearch -LLL output: unfolded, `::` values base64-decoded. */
export function parseLdifOutput(text: string): LdifEntry[] {
  const unfolded = text.replace(/\r?\n /g, '');
  const entries: LdifEntry[] = [];
  for (const block of unfolded.split(/\n{2,}/)) {
    const lines = block.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    if (lines.length === 0) continue;
    let dn: string | undefined;
    const attributes = new Map<string, string[]>();
    for (const line of lines) {
      const match = /^([^:]+)(::?)\s?(.*)$/.exec(line);
      if (!match) throw new Error(`not an LDIF line: ${JSON.stringify(line)}`);
      const [, name, colons, raw] = match as unknown as [string, string, string, string];
      const value = colons === '::' ? Buffer.from(raw, 'base64').toString('utf8') : raw;
      if (dn === undefined && name.toLowerCase() === 'dn') {
        dn = value;
        continue;
      }
      const list = attributes.get(name) ?? [];
      list.push(value);
      attributes.set(name, list);
    }
    if (dn === undefined) throw new Error(`LDIF record without dn: ${JSON.stringify(block)}`);
    entries.push({ dn, attributes });
  }
  return entries;
}

/** The values of an attribute in any case of its name. */
export function valuesOf(entry: LdifEntry, name: string): string[] {
  return [...entry.attributes].filter(([key]) => key.toLowerCase() === name.toLowerCase()).flatMap(([, values]) => values);
}

/** Response protocolOp tags (RFC 4511). */
export const Op = {
  bindResponse: 0x61,
  searchEntry: 0x64,
  searchDone: 0x65,
  searchReference: 0x73,
  modifyResponse: 0x67,
  addResponse: 0x69,
  deleteResponse: 0x6b,
  modifyDnResponse: 0x6d,
  compareResponse: 0x6f,
  extendedResponse: 0x78,
} as const;

export const NOTICE_OF_DISCONNECTION = '1.3.6.1.4.1.1466.20036';

export interface Response {
  readonly messageId: number;
  readonly op: number;
  /** For LDAPResult-shaped responses. */
  readonly code?: number;
  readonly matchedDn?: string;
  readonly message?: string;
  /** ExtendedResponse responseName and responseValue, when present. */
  readonly responseName?: string;
  readonly responseValue?: string;
  /** SearchResultEntry objectName. */
  readonly dn?: string;
  /** The response's controls ([0] Controls), content octets as sent. */
  readonly controls?: Buffer;
}

interface Tlv {
  readonly tag: number;
  readonly start: number;
  readonly end: number;
}

/** One TLV at `offset`, or undefined when the buffer ends first. Throws on what is not BER. */
function readTlv(buffer: Buffer, offset: number, limit = buffer.length): Tlv | undefined {
  if (offset + 2 > limit) return undefined;
  const tag = buffer[offset]!;
  const first = buffer[offset + 1]!;
  let length = first;
  let start = offset + 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 4) throw new Error(`bad BER length byte 0x${first.toString(16)}`);
    if (offset + 2 + count > limit) return undefined;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + buffer[offset + 2 + i]!;
    start += count;
  }
  if (start + length > limit) return undefined;
  return { tag, start, end: start + length };
}

function mustRead(buffer: Buffer, offset: number, limit: number, what: string): Tlv {
  const tlv = readTlv(buffer, offset, limit);
  if (!tlv) throw new Error(`truncated ${what}`);
  return tlv;
}

function integer(buffer: Buffer, tlv: Tlv): number {
  let value = 0;
  for (let i = tlv.start; i < tlv.end; i++) value = value * 256 + buffer[i]!;
  return value;
}

/** The cookie of a simple paged results control (RFC 2696) among a response's controls, if any. */
export function pagedCookie(controls: Buffer | undefined): Buffer | undefined {
  if (!controls) return undefined;
  for (let at = 0; at < controls.length;) {
    const control = mustRead(controls, at, controls.length, 'control');
    const oid = mustRead(controls, control.start, control.end, 'controlType');
    let next = mustRead(controls, oid.end, control.end, 'control value');
    if (next.tag === 0x01) next = mustRead(controls, next.end, control.end, 'control value');
    if (controls.toString('latin1', oid.start, oid.end) === '1.2.840.113556.1.4.319') {
      const value = mustRead(controls, next.start, next.end, 'realSearchControlValue');
      const size = mustRead(controls, value.start, value.end, 'size');
      const cookie = mustRead(controls, size.end, value.end, 'cookie');
      return controls.subarray(cookie.start, cookie.end);
    }
    at = control.end;
  }
  return undefined;
}

export interface ResponseControl {
  readonly type: string;
  readonly critical: boolean;
  readonly value?: Buffer;
}

/** Every control among a response's controls (the content of its [0] Controls), in order. */
export function responseControls(controls: Buffer | undefined): ResponseControl[] {
  const found: ResponseControl[] = [];
  for (let at = 0; controls && at < controls.length;) {
    const control = mustRead(controls, at, controls.length, 'control');
    const oid = mustRead(controls, control.start, control.end, 'controlType');
    let next = oid.end < control.end ? mustRead(controls, oid.end, control.end, 'criticality') : undefined;
    const critical = next?.tag === 0x01 && controls[next.start] !== 0;
    if (next?.tag === 0x01) next = next.end < control.end ? mustRead(controls, next.end, control.end, 'controlValue') : undefined;
    found.push({ type: controls.toString('latin1', oid.start, oid.end), critical, ...(next && { value: controls.subarray(next.start, next.end) }) });
    at = control.end;
  }
  return found;
}

/** Parses one LDAPMessage (a whole frame). */
export function parseResponse(frame: Buffer): Response {
  const outer = mustRead(frame, 0, frame.length, 'LDAPMessage');
  if (outer.tag !== 0x30) throw new Error(`LDAPMessage tag 0x${outer.tag.toString(16)}`);
  const id = mustRead(frame, outer.start, outer.end, 'messageID');
  const messageId = integer(frame, id);
  const op = mustRead(frame, id.end, outer.end, 'protocolOp');
  if (op.tag === Op.searchEntry) {
    const name = mustRead(frame, op.start, op.end, 'objectName');
    return { messageId, op: op.tag, dn: frame.toString('utf8', name.start, name.end) };
  }
  if (op.tag === Op.searchReference) return { messageId, op: op.tag };
  const code = mustRead(frame, op.start, op.end, 'resultCode');
  const matched = mustRead(frame, code.end, op.end, 'matchedDN');
  const message = mustRead(frame, matched.end, op.end, 'diagnosticMessage');
  let responseName: string | undefined;
  let responseValue: string | undefined;
  for (let at = message.end; at < op.end;) {
    const extra = mustRead(frame, at, op.end, 'response extra');
    if (op.tag === Op.extendedResponse && extra.tag === 0x8a) responseName = frame.toString('utf8', extra.start, extra.end);
    if (op.tag === Op.extendedResponse && extra.tag === 0x8b) responseValue = frame.toString('utf8', extra.start, extra.end);
    at = extra.end;
  }
  const controls = op.end < outer.end ? mustRead(frame, op.end, outer.end, 'controls') : undefined;
  return {
    ...(controls?.tag === 0xa0 && { controls: frame.subarray(controls.start, controls.end) }),
    messageId, op: op.tag, code: integer(frame, code),
    matchedDn: frame.toString('utf8', matched.start, matched.end), message: frame.toString('utf8', message.start, message.end),
    ...(responseName !== undefined && { responseName }),
    ...(responseValue !== undefined && { responseValue }),
  };
}

/**
 * A raw TCP connection to the server: writes bytes, parses whatever comes back into responses
 * and notes when the server closes. Never throws on socket errors (a reset counts as closed).
 */
export class RawConnection {
  readonly responses: Response[] = [];
  /** Set when the bytes received could not be parsed as LDAP messages. */
  garbled: string | undefined;
  closed = false;
  received = 0;
  private pending: Buffer = Buffer.alloc(0);
  private readonly waiters = new Set<() => void>();

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      this.notify();
    });
  }

  /** Reads responses from a socket already connected (a TLS socket, say). */
  static over(socket: net.Socket): RawConnection {
    return new RawConnection(socket);
  }

  /** Connects to 127.0.0.1:port, from `localAddress` if given (another loopback address, say). */
  static open(port: number, timeoutMs = 5000, localAddress?: string): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port, ...(localAddress && { localAddress }) });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no connection to 127.0.0.1:${port} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new RawConnection(socket));
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  private onData(chunk: Buffer): void {
    this.received += chunk.length;
    if (this.garbled !== undefined) return;
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    try {
      let offset = 0;
      for (;;) {
        const tlv = readTlv(this.pending, offset);
        if (!tlv) break;
        this.responses.push(parseResponse(this.pending.subarray(offset, tlv.end)));
        offset = tlv.end;
      }
      this.pending = this.pending.subarray(offset);
    } catch (error) {
      this.garbled = (error as Error).message;
    }
    this.notify();
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Writes bytes (ignoring errors: a closed connection shows in `closed`). */
  write(bytes: Buffer | Uint8Array): void {
    if (!this.socket.destroyed) this.socket.write(bytes, () => {});
  }

  /**
   * Resolves true as soon as `condition()` holds (checked on every arrival and close), false
   * after `timeoutMs`.
   */
  until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
    if (condition()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        resolve(condition());
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  /** Waits until the server closes the connection; true if it did within `timeoutMs`. */
  waitClosed(timeoutMs: number): Promise<boolean> {
    return this.until(() => this.closed, timeoutMs);
  }

  destroy(): void {
    this.socket.destroy();
  }
}
