/** Writing long outputs to stdout with backpressure: never buffer more than the pipe takes. */
import { once } from 'node:events';

export async function writeAll(chunks: AsyncIterable<string> | Iterable<string>, stream: NodeJS.WritableStream = process.stdout): Promise<void> {
  let pending = '';
  for await (const chunk of chunks) {
    pending += chunk;
    if (pending.length < 64 * 1024) continue;
    if (!stream.write(pending)) await once(stream, 'drain');
    pending = '';
  }
  if (pending && !stream.write(pending)) await once(stream, 'drain');
}
