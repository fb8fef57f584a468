/** Published PBKDF2 test vectors: P password, S salt, c iterations, dk the derived key in hex. */
export interface Pbkdf2Vector {
  readonly p: string;
  readonly s: string;
  readonly c: number;
  readonly dk: string;
}

/** RFC 6070, PBKDF2-HMAC-SHA1 (without the 16,777,216-iteration case). */
export const RFC_6070_SHA1: readonly Pbkdf2Vector[] = [
  { p: 'password', s: 'salt', c: 1, dk: '0c60c80f961f0e71f3a9b524af6012062fe037a6' },
  { p: 'password', s: 'salt', c: 2, dk: 'ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957' },
  { p: 'password', s: 'salt', c: 4096, dk: '4b007901b765489abead49d926f721d065a429c1' },
  { p: 'passwordPASSWORDpassword', s: 'saltSALTsaltSALTsaltSALTsaltSALTsalt', c: 4096, dk: '3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038' },
  { p: 'pass\0word', s: 'sa\0lt', c: 4096, dk: '56fa6aa75548099dcc37d7f03425e0c3' },
];

/**
 * PBKDF2-HMAC-SHA256: RFC 7914 section 11 (the two 64-byte keys), and the RFC 6070-shaped set
 * published on Stack Overflow ("PBKDF2-HMAC-SHA2 test vectors", without the 16,777,216 case).
 */
export const SHA256_VECTORS: readonly Pbkdf2Vector[] = [
  { p: 'passwd', s: 'salt', c: 1, dk: '55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783' },
  { p: 'Password', s: 'NaCl', c: 80000, dk: '4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d' },
  { p: 'password', s: 'salt', c: 1, dk: '120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b' },
  { p: 'password', s: 'salt', c: 2, dk: 'ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43' },
  { p: 'password', s: 'salt', c: 4096, dk: 'c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a' },
  { p: 'passwordPASSWORDpassword', s: 'saltSALTsaltSALTsaltSALTsaltSALTsalt', c: 4096, dk: '348c89dbcbd32b2f32d814b8116e84cf2b17347ebc1800181c4e2a1fb8dd53e1c635518c7dac47e9' },
  { p: 'pass\0word', s: 'sa\0lt', c: 4096, dk: '89b69d0516f829893c696226650a8687' },
];

/** PBKDF2-HMAC-SHA512: the same Stack Overflow set's SHA-512 values (64-byte keys). */
export const SHA512_VECTORS: readonly Pbkdf2Vector[] = [
  { p: 'password', s: 'salt', c: 1, dk: '867f70cf1ade02cff3752599a3a53dc4af34c7a669815ae5d513554e1c8cf252c02d470a285a0501bad999bfe943c08f050235d7d68b1da55e63f73b60a57fce' },
  { p: 'password', s: 'salt', c: 2, dk: 'e1d9c16aa681708a45f5c7c4e215ceb66e011a2e9f0040713f18aefdb866d53cf76cab2868a39b9f7840edce4fef5a82be67335c77a6068e04112754f27ccf4e' },
  { p: 'password', s: 'salt', c: 4096, dk: 'd197b1b33db0143e018b12f3d1d1479e6cdebdcc97c5c0f87f6902e072f457b5143f30602641b3d55cd335988cb36b84376060ecd532e039b742a239434af2d5' },
  { p: 'passwordPASSWORDpassword', s: 'saltSALTsaltSALTsaltSALTsaltSALTsalt', c: 4096, dk: '8c0511f4c6e597c6ac6315d8f0362e225f3c501495ba23b868c005174dc4ee71115b59f9e60cd9532fa33e0f75aefe30225c583a186cd82bd4daea9724a3d3b8' },
];
