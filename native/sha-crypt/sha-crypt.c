/*
 * SHA-crypt ($5$ and $6$) for schemes/crypt.ts, over the OpenSSL inside Node.js (sha-crypt.h:
 * the algorithm, the settings taken, why). Node exports OpenSSL's symbols to addons and
 * node-gyp puts its headers on the include path, so this links no library of its own. One function:
 *
 *   crypt(phrase, setting, callback)
 *
 * phrase a Uint8Array of at most 511 bytes without NUL; setting a string: a stored `$5$`/`$6$`
 * value or a new setting. A setting this does not take (sha-crypt.h) throws a RangeError at once,
 * so the caller hands it to libxcrypt instead; otherwise the hashing runs in libuv's thread pool
 * and callback(null, hashString) follows on the JavaScript thread. No global state, so it loads
 * in every worker thread.
 */
#define _DEFAULT_SOURCE /* explicit_bzero */
#include "sha-crypt.h"
#include "../common/napi-args.h"

#define MAX_SETTING 384 /* libxcrypt's CRYPT_OUTPUT_SIZE */

typedef struct {
  JobBase base;
  char setting[MAX_SETTING];
  char output[SHA_CRYPT_OUTPUT];
  size_t phrase_length;
  uint8_t phrase[SHA_CRYPT_MAX_KEY];
} Job;

static void discard(napi_env env, Job *job) {
  explicit_bzero(job->phrase, sizeof job->phrase);
  release_job(env, &job->base);
  free(job);
}

/* In a thread-pool thread: no JavaScript here. The setting was read once already, so it is taken. */
static void execute(napi_env env, void *data) {
  (void)env;
  Job *job = data;
  sha_crypt(job->phrase, job->phrase_length, job->setting, job->output);
  explicit_bzero(job->phrase, sizeof job->phrase);
}

static void complete(napi_env env, napi_status status, void *data) {
  Job *job = data;
  napi_value callback, hash;
  if (napi_get_reference_value(env, job->base.callback, &callback) == napi_ok) {
    if (status != napi_ok) call_back_error(env, callback, "the SHA-crypt work was cancelled");
    else if (napi_create_string_latin1(env, job->output, NAPI_AUTO_LENGTH, &hash) == napi_ok) call_back_result(env, callback, hash);
  }
  discard(env, job);
}

/* Whether this addon takes the setting (sha-crypt.h's read_setting, on the JavaScript thread). */
static int takes_setting(const char *setting) {
  ShaCryptSetting read;
  return read_setting(setting, &read);
}

static napi_value queue_crypt(napi_env env, napi_callback_info info) {
  size_t argc = 3, phrase_length;
  napi_value argv[3];
  const uint8_t *phrase;
  char setting[MAX_SETTING];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok
    || !read_bytes(env, argv[0], "phrase must be a Uint8Array or Buffer", &phrase, &phrase_length)
    || !read_string(env, argv[1], "setting must be a string shorter than 384 bytes", setting, sizeof setting)
    || !read_callback(env, argv[2])) {
    return NULL;
  }
  if (phrase_length > SHA_CRYPT_MAX_KEY || memchr(phrase, 0, phrase_length)) {
    throw_range(env, "phrase must be at most 511 bytes, without a NUL byte");
    return NULL;
  }
  if (!takes_setting(setting)) {
    throw_range(env, "not a SHA-crypt setting taken here: $5$ or $6$, rounds=1000..999999999 if any, a salt of ./0-9A-Za-z");
    return NULL;
  }
  Job *job = calloc(1, sizeof *job);
  if (!job) {
    napi_throw_error(env, "ERR_MEMORY_ALLOCATION_FAILED", "out of memory for a SHA-crypt job");
    return NULL;
  }
  memcpy(job->setting, setting, sizeof setting);
  job->phrase_length = phrase_length;
  if (phrase_length) memcpy(job->phrase, phrase, phrase_length);
  if (!queue_job(env, &job->base, "sha-crypt", argv[2], execute, complete)) {
    discard(env, job);
    napi_throw_error(env, NULL, "could not queue the SHA-crypt work");
  }
  return NULL;
}

NAPI_MODULE_INIT() {
  return export_function(env, exports, "crypt", queue_crypt) ? exports : NULL;
}
