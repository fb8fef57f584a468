/*
 * crypt(3) through the system's libxcrypt (yescrypt, SHA-crypt, bcrypt, MD5-crypt, DES), for
 * schemes/crypt.ts. Two functions:
 *
 *   crypt(phrase, setting, callback)  hashes phrase (a Uint8Array without NUL bytes) with the
 *       setting (a stored crypt string, or one from gensalt) in libuv's thread pool, then
 *       callback(null, hashString) on the JavaScript thread, or callback(error) when libxcrypt
 *       refuses the setting (an unknown or disabled method, a malformed string).
 *   gensalt(prefix, count)  a new setting for the method ("$y$", "$6$", "$2b$", ...), with
 *       random salt from the operating system, count 0 for the method's default. Synchronous
 *       (no hashing); throws when libxcrypt refuses the prefix or count.
 *   regions()  what the pool of yescrypt regions did (region-pool.h): { kept, reused, mapped, hooked }.
 *
 * Loading it points libcrypt's mmap and munmap at the pool of yescrypt regions, once per process
 * (region-pool.h); otherwise no global state, so it loads in every worker thread.
 */
#define _GNU_SOURCE /* explicit_bzero, and region-pool.h's dladdr1 */
#include "region-pool.h"
#include <crypt.h>
#include "../common/napi-args.h"

typedef struct {
  JobBase base;
  int failed;
  char setting[CRYPT_OUTPUT_SIZE];
  struct crypt_data data;
  size_t phrase_length;
  char phrase[]; /* NUL-terminated */
} Job;

static void discard(napi_env env, Job *job) {
  explicit_bzero(job->phrase, job->phrase_length);
  explicit_bzero(&job->data, sizeof job->data);
  release_job(env, &job->base);
  free(job);
}

/* In a thread-pool thread: no JavaScript here. crypt_rn returns NULL (or a string starting with '*') on failure. */
static void execute(napi_env env, void *data) {
  (void)env;
  Job *job = data;
  const char *result = crypt_rn(job->phrase, job->setting, &job->data, sizeof job->data);
  job->failed = result == NULL || result[0] == '*';
  explicit_bzero(job->phrase, job->phrase_length);
}

static void complete(napi_env env, napi_status status, void *data) {
  Job *job = data;
  napi_value callback, hash;
  if (napi_get_reference_value(env, job->base.callback, &callback) == napi_ok) {
    if (status != napi_ok) call_back_error(env, callback, "the crypt work was cancelled");
    else if (job->failed) call_back_error(env, callback, "libxcrypt refused the setting (an unknown or disabled method, or a malformed value)");
    else if (napi_create_string_utf8(env, job->data.output, NAPI_AUTO_LENGTH, &hash) == napi_ok) call_back_result(env, callback, hash);
  }
  discard(env, job);
}

static napi_value queue_crypt(napi_env env, napi_callback_info info) {
  size_t argc = 3, phrase_length;
  napi_value argv[3];
  const uint8_t *phrase;
  char setting[CRYPT_OUTPUT_SIZE];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok
    || !read_bytes(env, argv[0], "phrase must be a Uint8Array or Buffer", &phrase, &phrase_length)
    || !read_string(env, argv[1], "setting must be a string shorter than 384 bytes", setting, sizeof setting)
    || !read_callback(env, argv[2])) {
    return NULL;
  }
  if (memchr(phrase, 0, phrase_length)) {
    throw_range(env, "phrase must not contain a NUL byte");
    return NULL;
  }
  Job *job = calloc(1, sizeof *job + phrase_length + 1);
  if (!job) {
    napi_throw_error(env, "ERR_MEMORY_ALLOCATION_FAILED", "out of memory for a crypt job");
    return NULL;
  }
  memcpy(job->setting, setting, sizeof setting);
  job->phrase_length = phrase_length;
  if (phrase_length) memcpy(job->phrase, phrase, phrase_length);
  if (!queue_job(env, &job->base, "xcrypt", argv[2], execute, complete)) {
    discard(env, job);
    napi_throw_error(env, NULL, "could not queue the crypt work");
  }
  return NULL;
}

static napi_value gensalt(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], result;
  char prefix[16], output[CRYPT_GENSALT_OUTPUT_SIZE];
  uint32_t count;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok
    || !read_string(env, argv[0], "prefix must be a short string such as \"$y$\"", prefix, sizeof prefix)
    || !read_integer(env, argv[1], 0, 4294967295.0, "count must be a non-negative 32-bit integer", &count)) {
    return NULL;
  }
  if (!crypt_gensalt_rn(prefix, count, NULL, 0, output, sizeof output) || output[0] == '*') {
    throw_range(env, "libxcrypt refused the method or its cost");
    return NULL;
  }
  return napi_create_string_utf8(env, output, NAPI_AUTO_LENGTH, &result) == napi_ok ? result : NULL;
}

/* A property of a number, for regions(); 1, or 0 when it could not be set. */
static int set_number(napi_env env, napi_value object, const char *name, double number) {
  napi_value value;
  return napi_create_double(env, number, &value) == napi_ok && napi_set_named_property(env, object, name, value) == napi_ok;
}

static napi_value regions(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result, hooked;
  pthread_mutex_lock(&pool.lock);
  double kept = pool.count, reused = (double)pool.reused, mapped = (double)pool.mapped;
  pthread_mutex_unlock(&pool.lock);
  if (napi_create_object(env, &result) != napi_ok || napi_get_boolean(env, pool.hooked, &hooked) != napi_ok
    || napi_set_named_property(env, result, "hooked", hooked) != napi_ok
    || !set_number(env, result, "kept", kept) || !set_number(env, result, "reused", reused) || !set_number(env, result, "mapped", mapped)) {
    return NULL;
  }
  return result;
}

NAPI_MODULE_INIT() {
  hook_regions((void *)crypt_rn);
  return export_function(env, exports, "crypt", queue_crypt) && export_function(env, exports, "gensalt", gensalt)
    && export_function(env, exports, "regions", regions) ? exports : NULL;
}
