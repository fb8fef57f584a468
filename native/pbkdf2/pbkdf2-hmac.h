/*
 * PBKDF2-HMAC (RFC 8018, 5.2) with SHA-1, SHA-256 or SHA-512, over the block functions of the
 * OpenSSL that Node.js itself carries (SHA1_Transform, SHA256_Transform, SHA512_Transform: the
 * same assembly node:crypto runs, SHA-NI where the CPU has it). No JavaScript, no allocation.
 *
 * Why not a library's PBKDF2: an iteration is HMAC(U), two compressions of one block each. HMAC's
 * two keyed states are computed once per derivation; every U after the first is a single block
 * whose padding never changes (the digest, 0x80, zeros, the length in bits of a key block plus a
 * digest), so an iteration is two copies of a state and two block calls. nettle's
 * pbkdf2_hmac_sha256 goes through its buffered update/digest functions and OpenSSL's
 * PKCS5_PBKDF2_HMAC through EVP on every iteration: 1.35x and 2.2x the time per iteration here
 * (bench/bench-primitives.ts, docs/performance.md "PBKDF2 over OpenSSL's block functions").
 */
#ifndef LEVELDAP_PBKDF2_HMAC_H
#define LEVELDAP_PBKDF2_HMAC_H
#define OPENSSL_SUPPRESS_DEPRECATED /* the SHA*_Transform functions: deprecated in OpenSSL 3.0, not removed */
#include <openssl/sha.h>
#include <stdint.h>
#include <string.h>

#define MAX_BLOCK SHA512_CBLOCK
#define MAX_DIGEST SHA512_DIGEST_LENGTH

typedef union {
  SHA_CTX sha1;
  SHA256_CTX sha256;
  SHA512_CTX sha512;
} HashState;

/* What PBKDF2 needs of one hash function. */
typedef struct {
  size_t block, digest;
  /* out = the digest of one more block after the state `from` (not changed); out may be block. */
  void (*compress)(const HashState *from, const uint8_t *block, uint8_t *out);
  /* to = the state after one block, from the start. */
  void (*first_block)(HashState *to, const uint8_t *block);
  /* out = the digest of the state `from` followed by a then b (the first U's message). */
  void (*finish)(const HashState *from, const uint8_t *a, size_t a_length, const uint8_t *b, size_t b_length, uint8_t *out);
  void (*hash)(const uint8_t *data, size_t length, uint8_t *out);
} HashFunction;

static inline void put32(uint8_t *out, uint32_t value) {
  value = __builtin_bswap32(value);
  memcpy(out, &value, 4);
}

static inline void put64(uint8_t *out, uint64_t value) {
  value = __builtin_bswap64(value);
  memcpy(out, &value, 8);
}

static void sha1_compress(const HashState *from, const uint8_t *block, uint8_t *out) {
  SHA_CTX state = from->sha1;
  SHA1_Transform(&state, block);
  put32(out, state.h0);
  put32(out + 4, state.h1);
  put32(out + 8, state.h2);
  put32(out + 12, state.h3);
  put32(out + 16, state.h4);
}

static void sha256_compress(const HashState *from, const uint8_t *block, uint8_t *out) {
  SHA256_CTX state;
  memcpy(state.h, from->sha256.h, sizeof state.h);
  SHA256_Transform(&state, block);
  for (int i = 0; i < 8; i++) put32(out + 4 * i, state.h[i]);
}

static void sha512_compress(const HashState *from, const uint8_t *block, uint8_t *out) {
  SHA512_CTX state;
  memcpy(state.h, from->sha512.h, sizeof state.h);
  SHA512_Transform(&state, block);
  for (int i = 0; i < 8; i++) put64(out + 8 * i, state.h[i]);
}

static void sha1_first_block(HashState *to, const uint8_t *block) {
  SHA1_Init(&to->sha1);
  SHA1_Update(&to->sha1, block, SHA_CBLOCK);
}

static void sha256_first_block(HashState *to, const uint8_t *block) {
  SHA256_Init(&to->sha256);
  SHA256_Update(&to->sha256, block, SHA256_CBLOCK);
}

static void sha512_first_block(HashState *to, const uint8_t *block) {
  SHA512_Init(&to->sha512);
  SHA512_Update(&to->sha512, block, SHA512_CBLOCK);
}

static void sha1_finish(const HashState *from, const uint8_t *a, size_t a_length, const uint8_t *b, size_t b_length, uint8_t *out) {
  SHA_CTX state = from->sha1;
  SHA1_Update(&state, a, a_length);
  SHA1_Update(&state, b, b_length);
  SHA1_Final(out, &state);
}

static void sha256_finish(const HashState *from, const uint8_t *a, size_t a_length, const uint8_t *b, size_t b_length, uint8_t *out) {
  SHA256_CTX state = from->sha256;
  SHA256_Update(&state, a, a_length);
  SHA256_Update(&state, b, b_length);
  SHA256_Final(out, &state);
}

static void sha512_finish(const HashState *from, const uint8_t *a, size_t a_length, const uint8_t *b, size_t b_length, uint8_t *out) {
  SHA512_CTX state = from->sha512;
  SHA512_Update(&state, a, a_length);
  SHA512_Update(&state, b, b_length);
  SHA512_Final(out, &state);
}

static void sha1_hash(const uint8_t *data, size_t length, uint8_t *out) { SHA1(data, length, out); }
static void sha256_hash(const uint8_t *data, size_t length, uint8_t *out) { SHA256(data, length, out); }
static void sha512_hash(const uint8_t *data, size_t length, uint8_t *out) { SHA512(data, length, out); }

static const HashFunction SHA1_FUNCTION = { SHA_CBLOCK, SHA_DIGEST_LENGTH, sha1_compress, sha1_first_block, sha1_finish, sha1_hash };
static const HashFunction SHA256_FUNCTION = {
  SHA256_CBLOCK, SHA256_DIGEST_LENGTH, sha256_compress, sha256_first_block, sha256_finish, sha256_hash,
};
static const HashFunction SHA512_FUNCTION = {
  SHA512_CBLOCK, SHA512_DIGEST_LENGTH, sha512_compress, sha512_first_block, sha512_finish, sha512_hash,
};

/* HMAC's inner and outer states for this key (RFC 2104): a key longer than a block is hashed first. */
static void hmac_states(const HashFunction *h, const uint8_t *key, size_t key_length, HashState *inner, HashState *outer) {
  uint8_t padded[MAX_BLOCK] = {0};
  if (key_length > h->block) h->hash(key, key_length, padded);
  else if (key_length > 0) memcpy(padded, key, key_length);
  for (size_t i = 0; i < h->block; i++) padded[i] ^= 0x36;
  h->first_block(inner, padded);
  for (size_t i = 0; i < h->block; i++) padded[i] ^= 0x36 ^ 0x5c;
  h->first_block(outer, padded);
  explicit_bzero(padded, sizeof padded);
}

/* The block of a message that is one digest after a key block: the digest's room, 0x80, zeros, the length in bits. */
static void digest_block(const HashFunction *h, uint8_t *block) {
  memset(block, 0, h->block);
  block[h->digest] = 0x80;
  put64(block + h->block - 8, (uint64_t)(h->block + h->digest) * 8);
}

/* t = U_1 ^ ... ^ U_iterations, where U_1 = HMAC(salt || index) and U_j = HMAC(U_j-1). */
static void pbkdf2_block(const HashFunction *h, const HashState *inner, const HashState *outer, const uint8_t *salt,
  size_t salt_length, uint32_t index, uint32_t iterations, uint8_t *t) {
  uint8_t counter[4], block[MAX_BLOCK];
  put32(counter, index);
  digest_block(h, block);
  h->finish(inner, salt, salt_length, counter, sizeof counter, block);
  h->finish(outer, block, h->digest, NULL, 0, block);
  memcpy(t, block, h->digest);
  for (uint32_t i = 1; i < iterations; i++) {
    h->compress(inner, block, block);
    h->compress(outer, block, block);
    for (size_t k = 0; k < h->digest; k++) t[k] ^= block[k];
  }
  explicit_bzero(block, sizeof block);
}

/* out (length bytes) = PBKDF2-HMAC(password, salt, iterations); iterations >= 1. */
static void pbkdf2_hmac(const HashFunction *h, const uint8_t *password, size_t password_length, const uint8_t *salt,
  size_t salt_length, uint32_t iterations, uint8_t *out, size_t length) {
  HashState inner, outer;
  uint8_t t[MAX_DIGEST];
  hmac_states(h, password, password_length, &inner, &outer);
  for (uint32_t index = 1; length > 0; index++) {
    size_t taken = length < h->digest ? length : h->digest;
    pbkdf2_block(h, &inner, &outer, salt, salt_length, index, iterations, t);
    memcpy(out, t, taken);
    out += taken;
    length -= taken;
  }
  explicit_bzero(&inner, sizeof inner);
  explicit_bzero(&outer, sizeof outer);
  explicit_bzero(t, sizeof t);
}

#endif
