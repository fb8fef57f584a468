/**
 * The native/sys addon: a socket's TCP state from the kernel (a client that left is seen even
 * while nothing is read from it) and malloc_trim. Skipped when the addon is not built, unless
 * LEVELDAP_REQUIRE_NATIVE=1 (set by .ci/run), which makes a missing addon a failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { peerLeft, sysUnavailable, trimMemory } from '../../../../src/server/net/native-sys.js';

const unavailable = sysUnavailable();
const skip = unavailable && process.env.LEVELDAP_REQUIRE_NATIVE !== '1' ? `native/sys: ${unavailable}` : false;

test('the sys addon loaded (LEVELDAP_REQUIRE_NATIVE=1)', { skip }, () => {
  assert.equal(sysUnavailable(), undefined);
});

test('peerLeft: false while the client is connected, true once it closed, though its data is still unread', { skip }, async () => {
  const accepted: net.Socket[] = [];
  const server = net.createServer((socket) => {
    socket.pause();
    accepted.push(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  const client = net.connect(port, '127.0.0.1');
  await once(client, 'connect');
  while (accepted.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const socket = accepted[0]!;
  try {
    client.write(Buffer.alloc(1000, 1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(peerLeft(socket), false);
    client.end();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(peerLeft(socket), true, 'CLOSE_WAIT with 1,000 bytes unread');
  } finally {
    socket.destroy();
    client.destroy();
    server.close();
  }
});

test('trimMemory answers whether pages went back to the kernel', { skip }, () => {
  assert.equal(typeof trimMemory(), 'boolean');
});
