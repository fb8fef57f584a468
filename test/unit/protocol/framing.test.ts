import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DEFAULT_MAX_FRAME_BYTES, FrameError, FrameReader, decodeRequest } from '../../../src/protocol/index.js';

const require = createRequire(import.meta.url);
const messages: any = require('@ldapjs/messages');

function abandon(messageId: number, abandonId: number): Buffer {
  return new messages.AbandonRequest({ messageId, abandonId }).toBer().buffer;
}

/** An LDAPMessage-shaped frame whose content is `contentLength` bytes (short, 0x81, 0x82, 0x83 lengths). */
function frameOf(contentLength: number, fill: number): Buffer {
  const content = Buffer.alloc(contentLength, fill);
  let header: number[];
  if (contentLength < 0x80) header = [0x30, contentLength];
  else if (contentLength <= 0xff) header = [0x30, 0x81, contentLength];
  else if (contentLength <= 0xffff) header = [0x30, 0x82, contentLength >> 8, contentLength & 0xff];
  else header = [0x30, 0x83, contentLength >> 16, (contentLength >> 8) & 0xff, contentLength & 0xff];
  return Buffer.concat([Buffer.from(header), content]);
}

function collect(reader: FrameReader, chunks: Buffer[]): Buffer[] {
  const frames: Buffer[] = [];
  for (const chunk of chunks) frames.push(...reader.push(chunk));
  return frames;
}

function assertFrames(actual: Buffer[], expected: Buffer[]): void {
  assert.equal(actual.length, expected.length);
  actual.forEach((frame, i) => assert.ok(frame.equals(expected[i]!), `frame ${i} differs`));
}

const small = [abandon(1, 7), frameOf(0, 1), frameOf(127, 2), frameOf(128, 3), frameOf(300, 4), abandon(2, 0x7fffffff)];
const stream = Buffer.concat(small);

test('a stream split in two at every byte boundary gives the same frames', () => {
  for (let cut = 0; cut <= stream.length; cut++) {
    const reader = new FrameReader();
    assertFrames(collect(reader, [stream.subarray(0, cut), stream.subarray(cut)]), small);
    assert.equal(reader.bufferedBytes, 0);
  }
});

test('a stream split in three at many pairs of boundaries gives the same frames', () => {
  for (let first = 0; first <= stream.length; first += 3) {
    for (let second = first; second <= stream.length; second += 7) {
      const chunks = [stream.subarray(0, first), stream.subarray(first, second), stream.subarray(second)];
      assertFrames(collect(new FrameReader(), chunks), small);
    }
  }
});

test('a stream fed one byte at a time, including a 70,000-byte frame (0x83 length), gives the same frames', () => {
  const frames = [...small, frameOf(70_000, 5), abandon(3, 4)];
  const bytes = Buffer.concat(frames);
  const reader = new FrameReader({ maxBytes: 100_000 });
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i++) chunks.push(bytes.subarray(i, i + 1));
  assertFrames(collect(reader, chunks), frames);
});

test('partial frames are held, not returned, and bufferedBytes counts them', () => {
  const reader = new FrameReader();
  const frame = frameOf(300, 9);
  assert.deepEqual(reader.push(frame.subarray(0, 2)), []);
  assert.equal(reader.bufferedBytes, 2);
  assert.deepEqual(reader.push(frame.subarray(2, 100)), []);
  assert.equal(reader.bufferedBytes, 100);
  const [done, ...rest] = reader.push(Buffer.concat([frame.subarray(100), frame.subarray(0, 1)]));
  assert.ok(done?.equals(frame));
  assert.equal(rest.length, 0);
  assert.equal(reader.bufferedBytes, 1);
});

test('a frame trickled in a byte at a time holds about its own size, not every chunk it came in', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const held = (): number => {
    gc();
    gc(); // the second lets V8 hand back the first one's dead buffers
    return process.memoryUsage().arrayBuffers;
  };
  const reader = new FrameReader();
  const frame = frameOf(200_000, 4);
  const before = held();
  reader.push(frame.subarray(0, 4));
  // As a socket delivers a slow sender's bytes: each read a small view of a larger buffer of its own.
  for (let i = 4; i < frame.length - 1; i += 1) {
    const read = Buffer.allocUnsafeSlow(1024);
    read[0] = frame[i]!;
    assert.deepEqual(reader.push(read.subarray(0, 1)), []);
  }
  const grown = held() - before;
  // Every read kept: about 200 MB. What is left of the reads' garbage varies by a few MB.
  assert.ok(grown < 20_000_000, `${grown} bytes held for a partial frame of ${reader.bufferedBytes} bytes`);
  assertFrames(reader.push(frame.subarray(-1)), [frame]);
});

test('5,000 pipelined AbandonRequests in one chunk all come back, in order, and decode', () => {
  const frames = Array.from({ length: 5000 }, (_, i) => abandon(i + 1, i));
  const out = new FrameReader().push(Buffer.concat(frames));
  assert.equal(out.length, 5000);
  out.forEach((frame, i) => {
    const request = decodeRequest(frame);
    assert.equal(request.messageId, i + 1);
    assert.equal(request.kind === 'abandon' && request.abandonId, i);
  });
});

test('200,000 frames in one chunk: no recursion, no stack growth', () => {
  const one = abandon(5, 6);
  const out = new FrameReader().push(Buffer.concat(Array.from({ length: 200_000 }, () => one)));
  assert.equal(out.length, 200_000);
});

test('a declared length above maxBytes is refused on the header alone (2 GiB declared, 6 bytes fed)', () => {
  const reader = new FrameReader();
  const header = Buffer.from([0x30, 0x84, 0x80, 0x00, 0x00, 0x00]);
  assert.throws(() => reader.push(header), (error: unknown) => error instanceof FrameError && error.kind === 'tooLarge');
  assert.equal(reader.bufferedBytes, 0);
});

test('tooLarge is detected when the header arrives in pieces, and after complete frames', () => {
  const reader = new FrameReader({ maxBytes: 1000 });
  assert.equal(reader.push(Buffer.concat([abandon(1, 1), Buffer.from([0x30])])).length, 1);
  assert.deepEqual(reader.push(Buffer.from([0x82, 0x03])), []);
  assert.throws(() => reader.push(Buffer.from([0xe6])), (error: unknown) => error instanceof FrameError && error.kind === 'tooLarge');
});

test('maxBytes is the whole frame: exactly maxBytes passes, one more is refused; it can be raised later', () => {
  const frame = frameOf(300, 1);
  assert.equal(new FrameReader({ maxBytes: frame.length }).push(frame).length, 1);
  const reader = new FrameReader({ maxBytes: frame.length - 1 });
  assert.throws(() => reader.push(frame.subarray(0, 4)), /exceeds/);
  const raised = new FrameReader({ maxBytes: 100 });
  assert.equal(raised.push(abandon(1, 2)).length, 1);
  raised.maxBytes = 1000;
  assert.equal(raised.push(frame).length, 1);
  assert.equal(new FrameReader().maxBytes, DEFAULT_MAX_FRAME_BYTES);
  assert.throws(() => { raised.maxBytes = 0; }, RangeError);
});

test('malformed headers are FrameError "malformed", and the reader stays failed', () => {
  const cases: [string, number[]][] = [
    ['not a SEQUENCE', [0x31, 0x00]],
    ['a response-looking byte', [0x61, 0x03]],
    ['indefinite length', [0x30, 0x80]],
    ['five length bytes', [0x30, 0x85, 0, 0, 0, 0, 1]],
    ['reserved 0xff length', [0x30, 0xff]],
  ];
  for (const [name, bytes] of cases) {
    const reader = new FrameReader();
    assert.throws(() => reader.push(Buffer.from(bytes)), (error: unknown) => error instanceof FrameError && error.kind === 'malformed', name);
    assert.throws(() => reader.push(abandon(1, 1)), FrameError, `${name}: stays failed`);
  }
  const reader = new FrameReader();
  assert.equal(reader.push(Buffer.concat([abandon(1, 1), Buffer.from([0x30])])).length, 1);
  assert.throws(() => reader.push(Buffer.from([0x80])), /indefinite/);
});

test('an RDP cookie probe (the ldapjs crash) is a malformed frame', () => {
  const probe = Buffer.from('Cookie: mstshash=Administr\r\n');
  assert.throws(() => new FrameReader().push(probe), (error: unknown) => error instanceof FrameError && error.kind === 'malformed');
});

test('read() stops when told: every byte after the frame it stopped at comes from takeRest, at every cut of the input', () => {
  for (let cut = 0; cut <= stream.length; cut++) {
    const reader = new FrameReader();
    const taken: Buffer[] = [];
    for (const chunk of [stream.subarray(0, cut), stream.subarray(cut)]) {
      reader.read(chunk, (frame) => taken.push(frame) < 2);
      if (taken.length === 2) {
        const end = small[0]!.length + small[1]!.length;
        const received = cut >= end ? cut : stream.length;
        assert.ok(reader.takeRest().equals(stream.subarray(end, received)), `cut ${cut}`);
        assert.equal(reader.bufferedBytes, 0);
        break;
      }
    }
    assertFrames(taken, small.slice(0, 2));
  }
});

test('what follows the frame a reader stopped at is not parsed: TLS bytes behind it are no error, and come back from takeRest', () => {
  const clientHello = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0xfc, 0x03, 0x03]);
  const reader = new FrameReader();
  const chunk = Buffer.concat([abandon(1, 2), clientHello]);
  const taken: Buffer[] = [];
  reader.read(chunk, (frame) => taken.push(frame) < 1);
  assertFrames(taken, [abandon(1, 2)]);
  assert.ok(reader.takeRest().equals(clientHello));
  assert.deepEqual(reader.push(abandon(3, 4)).map((frame) => frame.toString('hex')), [abandon(3, 4).toString('hex')]);
  assert.throws(() => new FrameReader().push(chunk), FrameError, 'read to the end, the same bytes are malformed');
});

test('takeRest returns a partial frame held from earlier chunks', () => {
  const reader = new FrameReader();
  const frame = frameOf(300, 9);
  assert.deepEqual(reader.push(frame.subarray(0, 100)), []);
  assert.ok(reader.takeRest().equals(frame.subarray(0, 100)));
  assert.equal(reader.bufferedBytes, 0);
  assert.ok(reader.takeRest().equals(Buffer.alloc(0)));
});

test('takeRest may be called from inside take, as the connection does on StartTLS', () => {
  const after = Buffer.concat([abandon(5, 6), Buffer.from([0x16, 0x03, 0x01])]);
  const reader = new FrameReader();
  const first = abandon(1, 2);
  reader.push(first.subarray(0, 3));
  let rest: Buffer | undefined;
  reader.read(Buffer.concat([first.subarray(3), after]), () => {
    rest = reader.takeRest();
    return false;
  });
  assert.ok(rest?.equals(after));
  assert.ok(reader.takeRest().equals(Buffer.alloc(0)), 'nothing is left behind twice');
});
