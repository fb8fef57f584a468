/**
 * Questions one thread of `serve --threads` asks every serving thread (cn=Monitor's connection
 * list, /readyz's "does every thread answer?"), over a BroadcastChannel the threads of one
 * server share (its name is in the plan). Counters need none of this: they are in shared
 * memory (stats.ts). An asker waits for the answers at most ANSWER_MS; a thread that does not
 * answer by then is missing from the result.
 */
import { BroadcastChannel } from 'node:worker_threads';
import type { ConnectionRecord } from './connections.js';

const ANSWER_MS = 1000;

type Question = { readonly ask: 'connections' | 'ping'; readonly id: number; readonly from: number };
type Answer = { readonly answer: number; readonly to: number; readonly thread: number; readonly connections?: readonly ConnectionRecord[] };

/** What a serving thread answers with (undefined on the main thread of several, which serves none). */
export interface LocalAnswers {
  readonly thread: number;
  connections(): ConnectionRecord[];
}

interface Pending {
  readonly answers: Answer[];
  readonly done: () => void;
}

export class MonitorPeers {
  private readonly channel: BroadcastChannel;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /** `me`: this thread's number (-1 for a main thread that serves none); `serving`: how many threads serve. */
  constructor(name: string, private readonly me: number, private readonly serving: number, private readonly local?: LocalAnswers) {
    this.channel = new BroadcastChannel(name);
    this.channel.unref();
    this.channel.onmessage = (event) => this.onMessage((event as MessageEvent).data as Question | Answer);
  }

  private onMessage(message: Question | Answer): void {
    if ('ask' in message) {
      if (!this.local) return;
      const reply: Answer = { answer: message.id, to: message.from, thread: this.local.thread, ...(message.ask === 'connections' && { connections: this.local.connections() }) };
      this.channel.postMessage(reply);
      return;
    }
    if (message.to !== this.me) return;
    const waiting = this.pending.get(message.answer);
    if (!waiting) return;
    waiting.answers.push(message);
    if (waiting.answers.length >= this.others()) waiting.done();
  }

  /** The serving threads other than this one. */
  private others(): number {
    return this.local ? this.serving - 1 : this.serving;
  }

  private async ask(ask: Question['ask']): Promise<Answer[]> {
    if (this.others() === 0) return [];
    const id = this.nextId;
    this.nextId += 1;
    const answers: Answer[] = [];
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ANSWER_MS);
      this.pending.set(id, { answers, done: () => { clearTimeout(timer); resolve(); } });
      const question: Question = { ask, id, from: this.me };
      this.channel.postMessage(question);
    });
    this.pending.delete(id);
    return answers;
  }

  /** Every serving thread's connections (this one's included), by thread then number. */
  async connections(): Promise<ConnectionRecord[]> {
    const answers = await this.ask('connections');
    const all = [...(this.local?.connections() ?? []), ...answers.flatMap((answer) => answer.connections ?? [])];
    return all.sort((a, b) => a.id - b.id);
  }

  /** The serving threads that answered (this one, if it serves, always does). */
  async ping(): Promise<number[]> {
    const answers = await this.ask('ping');
    return [...(this.local ? [this.local.thread] : []), ...answers.map((answer) => answer.thread)].sort((a, b) => a - b);
  }

  close(): void {
    this.channel.close();
  }
}
