/**
 * The controls of one write (add, delete, modify, modify DN), read from the request once: the
 * assertion (assertion.ts), the pre-read and post-read copies (read-entry.ts). `before` runs
 * under the entry's lock, as the write's `check` (src/store/writes.ts), on the entry as the write
 * finds it (on add: as it will be stored): it tests the assertion and takes the pre-read copy.
 * `response` gives the controls of a write that succeeded, the post-read copy made from the entry
 * as written (which the write returns). So both copies are of the entry this write changed,
 * with no other write between them. A write that fails answers no read control (RFC 4527).
 */
import type { Entry } from '../store/index.js';
import { POST_READ_OID, PRE_READ_OID } from '../protocol/index.js';
import type { AddRequest, Control, DeleteRequest, ModifyDnRequest, ModifyRequest } from '../protocol/types.js';
import type { Selection } from './attributes.js';
import type { Identity } from './access.js';
import { assertionOf, requireAssertion, type Subordinates } from './assertion.js';
import { readEntryControl, readSelectionOf, wantsSubordinates } from './read-entry.js';
import type { Filter } from './filter/index.js';

type WriteRequest = AddRequest | DeleteRequest | ModifyRequest | ModifyDnRequest;

export class WriteControls {
  private preRead: Control | undefined;
  /** hasSubordinates, asked once under the lock when a read or the assertion needs it. */
  private subordinates: Promise<boolean> | undefined;

  private constructor(
    private readonly assertion: Filter | undefined,
    private readonly pre: Selection | undefined,
    private readonly post: Selection | undefined,
    private readonly identity: Identity,
    private readonly children: Subordinates,
  ) {}

  /**
   * The write's controls (a malformed one: protocolError, before anything is read). `children`
   * tells whether the target has children (asked under the lock, only when needed).
   */
  static of(request: WriteRequest, identity: Identity, children: Subordinates): WriteControls {
    return new WriteControls(assertionOf(request), readSelectionOf(request, PRE_READ_OID), readSelectionOf(request, POST_READ_OID), identity, children);
  }

  /** Under the entry's lock, before the write: the assertion (assertionFailed), then the pre-read copy. */
  readonly before = async (entry: Entry): Promise<void> => {
    if (this.assertion) await requireAssertion(this.assertion, entry, this.identity, this.hasSubordinates);
    const needed = wantsSubordinates(this.pre) || wantsSubordinates(this.post);
    const hasSubordinates = needed ? await this.hasSubordinates() : undefined;
    if (this.pre) this.preRead = readEntryControl(PRE_READ_OID, entry, this.pre, this.identity, hasSubordinates);
  };

  /** The response controls once the write is done; `written` is the entry as stored (none after a delete). */
  async response(written?: Entry): Promise<Control[] | undefined> {
    const controls: Control[] = this.preRead ? [this.preRead] : [];
    if (this.post && written) {
      const hasSubordinates = wantsSubordinates(this.post) ? await this.hasSubordinates() : undefined;
      controls.push(readEntryControl(POST_READ_OID, written, this.post, this.identity, hasSubordinates));
    }
    return controls.length > 0 ? controls : undefined;
  }

  private readonly hasSubordinates = (): Promise<boolean> => {
    this.subordinates ??= Promise.resolve(this.children());
    return this.subordinates;
  };
}
