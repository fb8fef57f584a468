/**
 * The controls of one write (add, delete, modify, modify DN), read from the request once: the
 * assertion (assertion.ts). `before` runs under the entry's lock, as the write's `check`
 * (src/store/writes.ts), on the entry as the write finds it (on add: as it will be stored): it
 * tests the assertion there, so no other write comes between the test and the change.
 */
import type { Entry } from '../store/index.js';
import type { AddRequest, DeleteRequest, ModifyDnRequest, ModifyRequest } from '../protocol/types.js';
import type { Identity } from './access.js';
import { assertionOf, requireAssertion, type Subordinates } from './assertion.js';
import type { Filter } from './filter/index.js';

type WriteRequest = AddRequest | DeleteRequest | ModifyRequest | ModifyDnRequest;

export class WriteControls {
  private constructor(
    private readonly assertion: Filter | undefined,
    private readonly identity: Identity,
    private readonly children: Subordinates,
  ) {}

  /**
   * The write's controls (a malformed one: protocolError, before anything is read). `children`
   * tells whether the target has children (asked under the lock, only when needed).
   */
  static of(request: WriteRequest, identity: Identity, children: Subordinates): WriteControls {
    return new WriteControls(assertionOf(request), identity, children);
  }

  /** Under the entry's lock, before the write: the assertion (assertionFailed). */
  readonly before = async (entry: Entry): Promise<void> => {
    if (this.assertion) await requireAssertion(this.assertion, entry, this.identity, this.children);
  };
}
