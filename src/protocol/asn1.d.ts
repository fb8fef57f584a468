/**
 * The part of @ldapjs/asn1 2.0.0 (CommonJS, no types of its own) that the wire layer uses.
 * Reader methods throw plain Errors (not ProtocolError) on a wrong tag, an indefinite length or
 * more than four length octets, and return null when the buffer ends early.
 */
declare module '@ldapjs/asn1' {
  namespace asn1 {
    class BerReader {
      constructor(buffer: Buffer);
      /** The position of the next byte to read. */
      readonly offset: number;
      /** The length of the element whose header was read last (negative for lengths >= 2^31). */
      readonly length: number;
      /** The next byte, or null at the end of the buffer. */
      peek(): number | null;
      /** Reads a constructed element's header; the offset moves to its first content byte. */
      readSequence(tag?: number): number | null;
      /** Reads a primitive element's header and returns its content (the offset stays at it). */
      readTag(tag: number): Buffer | null;
      setOffset(position: number): void;
    }

    class BerWriter {
      constructor(options?: { size?: number });
      /** The bytes written so far (a view of the writer's backing buffer). */
      readonly buffer: Buffer;
      startSequence(tag?: number): void;
      endSequence(): void;
      writeInt(value: number, tag?: number): void;
      writeBuffer(value: Buffer, tag: number): void;
    }
  }

  export = asn1;
}
