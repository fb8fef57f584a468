/** A search filter (RFC 4511 4.5.1), decoded from BER; values are raw octets. */
export type Filter =
  | { readonly type: 'and'; readonly filters: readonly Filter[] }
  | { readonly type: 'or'; readonly filters: readonly Filter[] }
  | { readonly type: 'not'; readonly filter: Filter }
  | { readonly type: 'equality' | 'greaterOrEqual' | 'lessOrEqual' | 'approx'; readonly attribute: string; readonly value: Buffer }
  | {
      readonly type: 'substrings';
      readonly attribute: string;
      readonly initial?: Buffer;
      readonly any: readonly Buffer[];
      readonly final?: Buffer;
    }
  | { readonly type: 'present'; readonly attribute: string }
  | {
      readonly type: 'extensible';
      readonly matchingRule?: string;
      readonly attribute?: string;
      readonly value: Buffer;
      readonly dnAttributes: boolean;
    };
