/**
 * The operations in flight on one serving thread, by weight (a search weighs one per 128 filter
 * terms, anything else one: weightOf below), under THREAD_BUDGET. A connection with nothing in
 * flight may always start one operation, so every connection goes on; beyond the budget the
 * others wait until operations finish. So the decoded requests a thread holds are bounded
 * whatever number of connections sends them: about THREAD_BUDGET x 128 filter terms
 * (some 45 MB of decoded and compiled filters at the most: about 0.7 KB a substring term),
 * plus one operation per connection.
 */
import type { AnsweredRequest } from '../dispatch.js';

/**
 * A search counts as one operation in flight per this many filter terms (at least one), so a
 * connection's filters in flight hold at most about maxOutstanding x TERMS_PER_OPERATION terms in
 * memory (a 9,999-term filter takes 6.6 MB decoded and compiled); a heavier one runs alone. 128:
 * with 256, 300 connections queuing 255-term searches grew the server by 473-506 MB, past the
 * suite's 500 MB bound (test/integration/serve-expensive-searches.test.ts).
 */
const TERMS_PER_OPERATION = 128;

/** An operation's weight: a search's by its filter's terms, any other 1. */
export function weightOf(request: AnsweredRequest): number {
  return request.kind === 'search' ? Math.max(1, Math.ceil(request.filterTerms / TERMS_PER_OPERATION)) : 1;
}

/** Weight in flight per serving thread before connections that already run something wait. */
const THREAD_BUDGET = 512;

export class ThreadLoad {
  private inFlight = 0;
  /** Connections waiting for room, woken (once each) when an operation finishes. */
  private readonly blocked = new Set<() => void>();

  constructor(readonly budget = THREAD_BUDGET) {}

  /** May an operation of `weight` start on a connection that has `own` weight in flight? */
  mayStart(weight: number, own: number): boolean {
    return own === 0 || this.inFlight + weight <= this.budget;
  }

  started(weight: number): void {
    this.inFlight += weight;
  }

  finished(weight: number): void {
    this.inFlight -= weight;
    if (this.blocked.size === 0) return;
    const wake = [...this.blocked];
    this.blocked.clear();
    for (const resume of wake) resume();
  }

  /** Calls `resume` once, when an operation finishes. */
  waitForRoom(resume: () => void): void {
    this.blocked.add(resume);
  }

  forget(resume: () => void): void {
    this.blocked.delete(resume);
  }

  /** Weight in flight now (for tests). */
  get weight(): number {
    return this.inFlight;
  }
}
