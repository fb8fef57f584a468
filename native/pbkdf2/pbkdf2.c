/*
 * PBKDF2-HMAC-SHA1, -SHA256 and -SHA512 for schemes/kdf.ts, over the SHA block functions of the
 * OpenSSL inside Node.js (pbkdf2-hmac.h: why, and how much faster than nettle's and OpenSSL's own
 * PBKDF2). Node exports OpenSSL's symbols to addons and node-gyp puts its headers on the include
 * path, so this links no library of its own. One function:
 *
 *   pbkdf2(digest, password, salt, iterations, length, callback)
 *
 * digest 'sha1', 'sha256' or 'sha512'; password and salt Uint8Arrays (Buffers); iterations
 * 1..2^31-1; length 1..1024. The inputs are copied, the hashing runs in libuv's thread pool, and
 * callback(null, key) follows on the JavaScript thread. Bad arguments throw a TypeError or
 * RangeError. No global state, so it loads in every worker thread.
 */
#define _DEFAULT_SOURCE /* explicit_bzero */
#include <stdlib.h>
#include "pbkdf2-hmac.h"
#include "../common/napi-args.h"

#define MAX_ITERATIONS 2147483647.0
#define MAX_LENGTH 1024.0

typedef struct {
  JobBase base;
  const HashFunction *hash;
  uint32_t iterations;
  size_t password_length, salt_length, length;
  uint8_t bytes[]; /* the password, the salt, then the derived key */
} Job;

static uint8_t *job_salt(Job *job) { return job->bytes + job->password_length; }
static uint8_t *job_key(Job *job) { return job_salt(job) + job->salt_length; }

static const struct {
  const char *name;
  const HashFunction *hash;
} DIGESTS[] = { { "sha1", &SHA1_FUNCTION }, { "sha256", &SHA256_FUNCTION }, { "sha512", &SHA512_FUNCTION } };

static int read_digest(napi_env env, napi_value value, const HashFunction **hash) {
  static const char message[] = "digest must be 'sha1', 'sha256' or 'sha512'";
  char name[8]; /* a longer string is cut to 7 bytes, and then matches no name */
  size_t length;
  if (!is_type(env, value, napi_string) || napi_get_value_string_utf8(env, value, name, sizeof name, &length) != napi_ok) {
    return throw_type(env, message);
  }
  for (size_t i = 0; i < sizeof DIGESTS / sizeof DIGESTS[0]; i++) {
    if (length == strlen(DIGESTS[i].name) && memcmp(name, DIGESTS[i].name, length) == 0) {
      *hash = DIGESTS[i].hash;
      return 1;
    }
  }
  return throw_type(env, message);
}

/* Wipes the password, releases the callback and the work, frees the job. */
static void discard(napi_env env, Job *job) {
  explicit_bzero(job->bytes, job->password_length);
  release_job(env, &job->base);
  free(job);
}

/* In a thread-pool thread: no JavaScript here. */
static void execute(napi_env env, void *data) {
  (void)env;
  Job *job = data;
  pbkdf2_hmac(job->hash, job->bytes, job->password_length, job_salt(job), job->salt_length, job->iterations, job_key(job), job->length);
  explicit_bzero(job->bytes, job->password_length);
}

/* Back on the JavaScript thread: callback(null, key), or callback(error) if the work was cancelled. */
static void complete(napi_env env, napi_status status, void *data) {
  Job *job = data;
  napi_value callback, key;
  if (napi_get_reference_value(env, job->base.callback, &callback) == napi_ok) {
    if (status != napi_ok) call_back_error(env, callback, "the PBKDF2 work was cancelled");
    else if (napi_create_buffer_copy(env, job->length, job_key(job), NULL, &key) == napi_ok) call_back_result(env, callback, key);
  }
  discard(env, job);
}

static napi_value queue_pbkdf2(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  uint32_t iterations, length;
  napi_value argv[6];
  const HashFunction *hash;
  const uint8_t *password, *salt;
  size_t password_length, salt_length;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (!read_digest(env, argv[0], &hash)
    || !read_bytes(env, argv[1], "password must be a Uint8Array or Buffer", &password, &password_length)
    || !read_bytes(env, argv[2], "salt must be a Uint8Array or Buffer", &salt, &salt_length)
    || !read_integer(env, argv[3], 1, MAX_ITERATIONS, "iterations must be an integer from 1 to 2147483647", &iterations)
    || !read_integer(env, argv[4], 1, MAX_LENGTH, "length must be an integer from 1 to 1024", &length)
    || !read_callback(env, argv[5])) {
    return NULL;
  }
  Job *job = calloc(1, sizeof *job + password_length + salt_length + length);
  if (!job) {
    napi_throw_error(env, "ERR_MEMORY_ALLOCATION_FAILED", "out of memory for a PBKDF2 job");
    return NULL;
  }
  job->hash = hash;
  job->iterations = iterations;
  job->password_length = password_length;
  job->salt_length = salt_length;
  job->length = length;
  if (password_length) memcpy(job->bytes, password, password_length);
  if (salt_length) memcpy(job_salt(job), salt, salt_length);
  if (!queue_job(env, &job->base, "pbkdf2", argv[5], execute, complete)) {
    discard(env, job);
    napi_throw_error(env, NULL, "could not queue the PBKDF2 work");
  }
  return NULL;
}

NAPI_MODULE_INIT() {
  return export_function(env, exports, "pbkdf2", queue_pbkdf2) ? exports : NULL;
}
