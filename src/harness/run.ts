/** Run a program to completion without a shell and capture what it printed. */
import { spawn } from 'node:child_process';

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const OUTPUT_LIMIT = 1024 * 1024;

/** Accumulates a stream's text, keeping the last OUTPUT_LIMIT characters. */
export function collect(stream: NodeJS.ReadableStream | null): () => string {
  let text = '';
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk: string) => {
    text = (text + chunk).slice(-OUTPUT_LIMIT);
  });
  return () => text;
}

/** Resolves with the exit code (128 when killed by a signal) and the output; feeds `input` on stdin. */
export function run(program: string, args: readonly string[], input?: string | Uint8Array): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout = collect(child.stdout);
    const stderr = collect(child.stderr);
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout: stdout(), stderr: stderr() }));
    child.stdin.on('error', () => {}); // the exit code tells what went wrong
    child.stdin.end(input ?? '');
  });
}
