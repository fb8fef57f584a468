/** The part of @ldapjs/filter 2.1.1 (CommonJS, no types of its own) that authrate uses: RFC 4515 strings to BER. */
declare module '@ldapjs/filter' {
  interface Filter {
    toBer(): { readonly buffer: Buffer };
  }
  /** Throws on a malformed filter. */
  function parseString(text: string): Filter;
  const filters: { parseString: typeof parseString };
  export default filters;
}
