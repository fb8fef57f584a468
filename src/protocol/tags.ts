/** BER tags of LDAPv3 (RFC 4511) used by the decoder and the encoder. */
export const Tag = {
  Boolean: 0x01,
  Integer: 0x02,
  OctetString: 0x04,
  Enumerated: 0x0a,
  Sequence: 0x30,
  Set: 0x31,
  Controls: 0xa0,
  // requests
  SimplePassword: 0x80,
  Sasl: 0xa3,
  NewSuperior: 0x80,
  ExtendedName: 0x80,
  ExtendedValue: 0x81,
  // responses
  SearchEntry: 0x64,
  ExtendedResponse: 0x78,
  ServerSaslCreds: 0x87,
  ResponseName: 0x8a,
  ResponseValue: 0x8b,
} as const;
