/*
 * PBKDF2-HMAC-SHA1 and PBKDF2-HMAC-SHA256 through nettle, for schemes/kdf.ts: nettle spends
 * about half the time per iteration that Node 20's OpenSSL 3.0 does. One function:
 *
 *   pbkdf2(digest, password, salt, iterations, length, callback)
 *
 * digest 'sha1' or 'sha256'; password and salt Uint8Arrays (Buffers); iterations 1..2^31-1;
 * length 1..1024. The inputs are copied, the hashing runs in libuv's thread pool, and
 * callback(null, key) follows on the JavaScript thread. Bad arguments throw a TypeError or
 * RangeError. No global state, so it loads in every worker thread.
 */
#define _DEFAULT_SOURCE /* explicit_bzero */
#include <stdlib.h>
#include <nettle/pbkdf2.h>
#include "../common/napi-args.h"

#define MAX_ITERATIONS 2147483647.0
#define MAX_LENGTH 1024.0

typedef struct {
  JobBase base;
  int sha256;
  unsigned iterations;
  size_t password_length, salt_length, length;
  uint8_t bytes[]; /* the password, the salt, then the derived key */
} Job;

static uint8_t *job_salt(Job *job) { return job->bytes + job->password_length; }
static uint8_t *job_key(Job *job) { return job_salt(job) + job->salt_length; }

static int read_digest(napi_env env, napi_value value, int *sha256) {
  static const char message[] = "digest must be 'sha1' or 'sha256'";
  char name[8];
  size_t length;
  if (!is_type(env, value, napi_string)) return throw_type(env, message);
  if (napi_get_value_string_utf8(env, value, name, sizeof name, &length) != napi_ok) return throw_type(env, message);
  if (length == 4 && memcmp(name, "sha1", 4) == 0) *sha256 = 0;
  else if (length == 6 && memcmp(name, "sha256", 6) == 0) *sha256 = 1;
  else return throw_type(env, message);
  return 1;
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
  if (job->sha256) {
    pbkdf2_hmac_sha256(job->password_length, job->bytes, job->iterations, job->salt_length, job_salt(job), job->length, job_key(job));
  } else {
    pbkdf2_hmac_sha1(job->password_length, job->bytes, job->iterations, job->salt_length, job_salt(job), job->length, job_key(job));
  }
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
  int sha256;
  const uint8_t *password, *salt;
  size_t password_length, salt_length;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  if (!read_digest(env, argv[0], &sha256)
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
  job->sha256 = sha256;
  job->iterations = (unsigned)iterations;
  job->password_length = password_length;
  job->salt_length = salt_length;
  job->length = length;
  if (password_length) memcpy(job->bytes, password, password_length);
  if (salt_length) memcpy(job_salt(job), salt, salt_length);
  if (!queue_job(env, &job->base, "nettle-pbkdf2", argv[5], execute, complete)) {
    discard(env, job);
    napi_throw_error(env, NULL, "could not queue the PBKDF2 work");
  }
  return NULL;
}

NAPI_MODULE_INIT() {
  return export_function(env, exports, "pbkdf2", queue_pbkdf2) ? exports : NULL;
}
