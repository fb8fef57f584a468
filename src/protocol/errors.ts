/** Errors of the wire layer: framing (the byte stream) and decoding (one LDAPMessage). */

/**
 * A request that could not be decoded. `messageId` is set when the message ID itself was
 * readable, so the server can answer protocolError for that message; without it the server
 * should disconnect (after a notice of disconnection).
 */
export class ProtocolError extends Error {
  readonly messageId: number | undefined;

  constructor(message: string, messageId?: number) {
    super(message);
    this.name = 'ProtocolError';
    this.messageId = messageId;
  }
}

export type FrameErrorKind = 'malformed' | 'tooLarge';

/** The byte stream cannot be split into LDAPMessages: the connection must be closed. */
export class FrameError extends Error {
  readonly kind: FrameErrorKind;

  constructor(kind: FrameErrorKind, message: string) {
    super(message);
    this.name = 'FrameError';
    this.kind = kind;
  }
}
