/** The operation was abandoned (or its connection closed): no response is sent. */
export class Abandoned extends Error {
  override name = 'Abandoned';
}
