/*
 * Argon2 through the reference implementation (libargon2, the library OpenLDAP's argon2 module
 * links), for schemes/argon2.ts. One function:
 *
 *   hash(type, version, password, salt, passes, memoryKiB, lanes, length, callback)
 *
 * type 0 argon2d, 1 argon2i, 2 argon2id; version 16 or 19; password and salt Uint8Arrays; the
 * costs as in the PHC string (t, m, p); length of the raw hash, 4..1024. The inputs are copied,
 * the hashing runs in libuv's thread pool, and callback(null, hash) follows on the JavaScript
 * thread, or callback(error) with libargon2's reason (memory too small for the lanes, ...).
 * No global state, so it loads in every worker thread.
 */
#define _DEFAULT_SOURCE /* explicit_bzero */
#include <stdlib.h>
#include <argon2.h>
#include "../common/napi-args.h"

typedef struct {
  JobBase base;
  argon2_type type;
  uint32_t version, passes, memory, lanes;
  int result;
  size_t password_length, salt_length, length;
  uint8_t bytes[]; /* the password, the salt, then the hash */
} Job;

static uint8_t *job_salt(Job *job) { return job->bytes + job->password_length; }
static uint8_t *job_hash(Job *job) { return job_salt(job) + job->salt_length; }

static void discard(napi_env env, Job *job) {
  explicit_bzero(job->bytes, job->password_length);
  release_job(env, &job->base);
  free(job);
}

/* In a thread-pool thread: no JavaScript here. */
static void execute(napi_env env, void *data) {
  (void)env;
  Job *job = data;
  job->result = argon2_hash(job->passes, job->memory, job->lanes, job->bytes, job->password_length,
    job_salt(job), job->salt_length, job_hash(job), job->length, NULL, 0, job->type, job->version);
  explicit_bzero(job->bytes, job->password_length);
}

static void complete(napi_env env, napi_status status, void *data) {
  Job *job = data;
  napi_value callback, hash;
  if (napi_get_reference_value(env, job->base.callback, &callback) == napi_ok) {
    if (status != napi_ok) call_back_error(env, callback, "the Argon2 work was cancelled");
    else if (job->result != ARGON2_OK) call_back_error(env, callback, argon2_error_message(job->result));
    else if (napi_create_buffer_copy(env, job->length, job_hash(job), NULL, &hash) == napi_ok) call_back_result(env, callback, hash);
  }
  discard(env, job);
}

typedef struct {
  uint32_t type, version, passes, memory, lanes, length;
  const uint8_t *password, *salt;
  size_t password_length, salt_length;
} Request;

static int read_request(napi_env env, napi_value *argv, Request *request) {
  return read_integer(env, argv[0], 0, 2, "type must be 0 (argon2d), 1 (argon2i) or 2 (argon2id)", &request->type)
    && read_integer(env, argv[1], 16, 19, "version must be 16 or 19", &request->version)
    && (request->version == 16 || request->version == 19 || throw_range(env, "version must be 16 or 19"))
    && read_bytes(env, argv[2], "password must be a Uint8Array or Buffer", &request->password, &request->password_length)
    && read_bytes(env, argv[3], "salt must be a Uint8Array or Buffer", &request->salt, &request->salt_length)
    && read_integer(env, argv[4], 1, 4294967295.0, "passes must be a positive 32-bit integer", &request->passes)
    && read_integer(env, argv[5], 1, 4294967295.0, "memory must be a positive 32-bit integer (KiB)", &request->memory)
    && read_integer(env, argv[6], 1, 16777215, "lanes must be an integer from 1 to 16777215", &request->lanes)
    && read_integer(env, argv[7], 4, 1024, "length must be an integer from 4 to 1024", &request->length)
    && read_callback(env, argv[8]);
}

static napi_value queue_hash(napi_env env, napi_callback_info info) {
  size_t argc = 9;
  napi_value argv[9];
  Request request;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || !read_request(env, argv, &request)) return NULL;
  Job *job = calloc(1, sizeof *job + request.password_length + request.salt_length + request.length);
  if (!job) {
    napi_throw_error(env, "ERR_MEMORY_ALLOCATION_FAILED", "out of memory for an Argon2 job");
    return NULL;
  }
  job->type = (argon2_type)request.type;
  job->version = request.version;
  job->passes = request.passes;
  job->memory = request.memory;
  job->lanes = request.lanes;
  job->password_length = request.password_length;
  job->salt_length = request.salt_length;
  job->length = request.length;
  if (request.password_length) memcpy(job->bytes, request.password, request.password_length);
  if (request.salt_length) memcpy(job_salt(job), request.salt, request.salt_length);
  if (!queue_job(env, &job->base, "argon2", argv[8], execute, complete)) {
    discard(env, job);
    napi_throw_error(env, NULL, "could not queue the Argon2 work");
  }
  return NULL;
}

NAPI_MODULE_INIT() {
  return export_function(env, exports, "hash", queue_hash) ? exports : NULL;
}
