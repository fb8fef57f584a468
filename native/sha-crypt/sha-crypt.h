/*
 * SHA-crypt, `$5$` (SHA-256) and `$6$` (SHA-512), as specified by Ulrich Drepper ("Unix crypt
 * using SHA-256 and SHA-512", the algorithm glibc and libxcrypt implement), over the SHA
 * functions of the OpenSSL inside Node.js: the same strings as libxcrypt's crypt_rn, in 0.75x of
 * its time for `$6$` and a fraction of it for `$5$` (OpenSSL's SHA-256 uses the CPU's SHA
 * extensions, libxcrypt's does not; docs/performance.md, "Three hashes made cheaper than slapd's").
 *
 * Only settings libxcrypt takes are taken here: `$5$` or `$6$`, then `rounds=N$` with N from 1,000
 * to 999,999,999 written without a leading zero (or nothing: 5,000 rounds), then a salt of the
 * characters ./0-9A-Za-z, of which the first 16 count, ending at `$` or at the end. Anything else
 * is refused (sha_crypt returns 0) and left to libxcrypt, which refuses it too.
 */
#ifndef LEVELDAP_SHA_CRYPT_H
#define LEVELDAP_SHA_CRYPT_H
#define OPENSSL_SUPPRESS_DEPRECATED /* SHA256_Init and the like: deprecated in OpenSSL 3.0, not removed */
#include <openssl/sha.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHA_CRYPT_DEFAULT_ROUNDS 5000UL
#define SHA_CRYPT_MIN_ROUNDS 1000UL
#define SHA_CRYPT_MAX_ROUNDS 999999999UL
#define SHA_CRYPT_MAX_SALT 16
#define SHA_CRYPT_MAX_KEY 511 /* libxcrypt's limit, less the NUL */
/* "$6$rounds=999999999$" + 16 salt + "$" + 86 hash characters, and a NUL */
#define SHA_CRYPT_OUTPUT 128

typedef union {
  SHA256_CTX sha256;
  SHA512_CTX sha512;
} ShaState;

/* One of the two hash functions, and how its digest is written out (Drepper's byte order). */
typedef struct {
  char id;
  size_t digest;
  void (*init)(ShaState *state);
  void (*update)(ShaState *state, const void *data, size_t length);
  void (*final)(uint8_t *out, ShaState *state);
  /* The digest's bytes taken three at a time (the last group may start with unused zeros), and how many characters the last group makes. */
  const uint8_t (*groups)[3];
  size_t group_count, last_chars;
} ShaCryptHash;

static void sha256_init(ShaState *state) { SHA256_Init(&state->sha256); }
static void sha256_update(ShaState *state, const void *data, size_t length) { SHA256_Update(&state->sha256, data, length); }
static void sha256_final(uint8_t *out, ShaState *state) { SHA256_Final(out, &state->sha256); }
static void sha512_init(ShaState *state) { SHA512_Init(&state->sha512); }
static void sha512_update(ShaState *state, const void *data, size_t length) { SHA512_Update(&state->sha512, data, length); }
static void sha512_final(uint8_t *out, ShaState *state) { SHA512_Final(out, &state->sha512); }

/* The byte triples of Drepper's specification, 64 = unused (a zero byte). */
static const uint8_t SHA256_GROUPS[][3] = {
  { 0, 10, 20 }, { 21, 1, 11 }, { 12, 22, 2 }, { 3, 13, 23 }, { 24, 4, 14 }, { 15, 25, 5 }, { 6, 16, 26 },
  { 27, 7, 17 }, { 18, 28, 8 }, { 9, 19, 29 }, { 64, 31, 30 },
};
static const uint8_t SHA512_GROUPS[][3] = {
  { 0, 21, 42 }, { 22, 43, 1 }, { 44, 2, 23 }, { 3, 24, 45 }, { 25, 46, 4 }, { 47, 5, 26 }, { 6, 27, 48 },
  { 28, 49, 7 }, { 50, 8, 29 }, { 9, 30, 51 }, { 31, 52, 10 }, { 53, 11, 32 }, { 12, 33, 54 }, { 34, 55, 13 },
  { 56, 14, 35 }, { 15, 36, 57 }, { 37, 58, 16 }, { 59, 17, 38 }, { 18, 39, 60 }, { 40, 61, 19 }, { 62, 20, 41 },
  { 64, 64, 63 },
};

static const ShaCryptHash SHA256_CRYPT = { '5', 32, sha256_init, sha256_update, sha256_final, SHA256_GROUPS, 11, 3 };
static const ShaCryptHash SHA512_CRYPT = { '6', 64, sha512_init, sha512_update, sha512_final, SHA512_GROUPS, 22, 2 };

static const char ITOA64[] = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

static int is_salt_character(char c) { return c != '\0' && strchr(ITOA64, c) != NULL; }

/* A setting read: which hash, the rounds (and whether they were written), the salt. */
typedef struct {
  const ShaCryptHash *hash;
  unsigned long rounds;
  int rounds_written;
  const char *salt;
  size_t salt_length;
} ShaCryptSetting;

/* `rounds=N$` at *text: N into setting, text moved past the `$`; 0 when it is not one libxcrypt takes. */
static int read_rounds(const char **text, ShaCryptSetting *setting) {
  const char *digits = *text + 7;
  char *end;
  if (strncmp(*text, "rounds=", 7) != 0) return 1; /* no rounds: the default */
  if (!(*digits >= '1' && *digits <= '9')) return 0;
  unsigned long rounds = strtoul(digits, &end, 10);
  if (*end != '$' || end - digits > 9 || rounds < SHA_CRYPT_MIN_ROUNDS || rounds > SHA_CRYPT_MAX_ROUNDS) return 0;
  setting->rounds = rounds;
  setting->rounds_written = 1;
  *text = end + 1;
  return 1;
}

/* Reads `$5$` or `$6$`, the rounds and the salt; 0 for a setting left to libxcrypt. */
static int read_setting(const char *text, ShaCryptSetting *setting) {
  if (text[0] != '$' || (text[1] != '5' && text[1] != '6') || text[2] != '$') return 0;
  setting->hash = text[1] == '5' ? &SHA256_CRYPT : &SHA512_CRYPT;
  setting->rounds = SHA_CRYPT_DEFAULT_ROUNDS;
  setting->rounds_written = 0;
  text += 3;
  if (!read_rounds(&text, setting)) return 0;
  size_t length = 0;
  while (text[length] != '\0' && text[length] != '$') {
    if (!is_salt_character(text[length])) return 0;
    length++;
  }
  setting->salt = text;
  setting->salt_length = length < SHA_CRYPT_MAX_SALT ? length : SHA_CRYPT_MAX_SALT;
  return 1;
}

/* out = `length` bytes of `source` repeated (source holds digest bytes). */
static void repeat(uint8_t *out, size_t length, const uint8_t *source, size_t digest) {
  for (size_t at = 0; at < length; at += digest) memcpy(out + at, source, length - at < digest ? length - at : digest);
}

/* Steps 1-12 of the specification: the digest A that the rounds start from. */
static void initial_digest(const ShaCryptHash *h, const uint8_t *key, size_t key_length, const char *salt, size_t salt_length, uint8_t *a) {
  ShaState state;
  uint8_t b[64];
  h->init(&state);
  h->update(&state, key, key_length);
  h->update(&state, salt, salt_length);
  h->update(&state, key, key_length);
  h->final(b, &state);
  h->init(&state);
  h->update(&state, key, key_length);
  h->update(&state, salt, salt_length);
  size_t left = key_length;
  for (; left > h->digest; left -= h->digest) h->update(&state, b, h->digest);
  h->update(&state, b, left);
  for (size_t bits = key_length; bits > 0; bits >>= 1) {
    if (bits & 1) h->update(&state, b, h->digest);
    else h->update(&state, key, key_length);
  }
  h->final(a, &state);
  explicit_bzero(b, sizeof b);
}

/* The sequences P (from the key) and S (from the salt) of steps 13-20. */
static void key_and_salt_sequences(const ShaCryptHash *h, const uint8_t *key, size_t key_length, const char *salt, size_t salt_length,
  uint8_t first_of_a, uint8_t *p, uint8_t *s) {
  ShaState state;
  uint8_t digest[64];
  h->init(&state);
  for (size_t i = 0; i < key_length; i++) h->update(&state, key, key_length);
  h->final(digest, &state);
  repeat(p, key_length, digest, h->digest);
  h->init(&state);
  for (size_t i = 0; i < 16u + first_of_a; i++) h->update(&state, salt, salt_length);
  h->final(digest, &state);
  repeat(s, salt_length, digest, h->digest);
  explicit_bzero(digest, sizeof digest);
}

/* Step 21: the rounds, each hashing the previous digest c with P and S in the specified order. */
static void run_rounds(const ShaCryptHash *h, unsigned long rounds, const uint8_t *p, size_t key_length, const uint8_t *s,
  size_t salt_length, uint8_t *c) {
  ShaState state;
  for (unsigned long round = 0; round < rounds; round++) {
    h->init(&state);
    if (round & 1) h->update(&state, p, key_length);
    else h->update(&state, c, h->digest);
    if (round % 3) h->update(&state, s, salt_length);
    if (round % 7) h->update(&state, p, key_length);
    if (round & 1) h->update(&state, c, h->digest);
    else h->update(&state, p, key_length);
    h->final(c, &state);
  }
  explicit_bzero(&state, sizeof state);
}

/* The digest as crypt's base64, written at out; returns the end. */
static char *encode_digest(const ShaCryptHash *h, const uint8_t *digest, char *out) {
  for (size_t g = 0; g < h->group_count; g++) {
    const uint8_t *group = h->groups[g];
    uint32_t word = 0;
    for (int i = 0; i < 3; i++) word = (word << 8) | (group[i] < 64 ? digest[group[i]] : 0);
    size_t chars = g + 1 == h->group_count ? h->last_chars : 4;
    for (size_t i = 0; i < chars; i++, word >>= 6) *out++ = ITOA64[word & 0x3f];
  }
  return out;
}

/*
 * output = crypt(key, setting): `$5$` or `$6$`, `rounds=N$` when the setting wrote it, the salt,
 * `$`, the digest. Returns 0 (output untouched) for a setting left to libxcrypt; key_length at
 * most SHA_CRYPT_MAX_KEY, output SHA_CRYPT_OUTPUT bytes.
 */
static int sha_crypt(const uint8_t *key, size_t key_length, const char *setting_text, char *output) {
  ShaCryptSetting setting;
  uint8_t c[64], p[SHA_CRYPT_MAX_KEY], s[SHA_CRYPT_MAX_SALT];
  if (key_length > SHA_CRYPT_MAX_KEY || !read_setting(setting_text, &setting)) return 0;
  const ShaCryptHash *h = setting.hash;
  initial_digest(h, key, key_length, setting.salt, setting.salt_length, c);
  key_and_salt_sequences(h, key, key_length, setting.salt, setting.salt_length, c[0], p, s);
  run_rounds(h, setting.rounds, p, key_length, s, setting.salt_length, c);
  int written = setting.rounds_written
    ? snprintf(output, SHA_CRYPT_OUTPUT, "$%c$rounds=%lu$%.*s$", h->id, setting.rounds, (int)setting.salt_length, setting.salt)
    : snprintf(output, SHA_CRYPT_OUTPUT, "$%c$%.*s$", h->id, (int)setting.salt_length, setting.salt);
  *encode_digest(h, c, output + written) = '\0';
  explicit_bzero(c, sizeof c);
  explicit_bzero(p, sizeof p);
  return 1;
}

#endif
