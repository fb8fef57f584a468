/*
 * What the hashing addons (native/pbkdf2, native/argon2, native/xcrypt) share: argument
 * readers, each returning 1, or throwing a TypeError/RangeError into JavaScript and returning 0
 * (so a caller reads all its arguments in one && chain and returns NULL on the first 0); the
 * callbacks; and the life of a job in libuv's thread pool (queue_job, release_job).
 */
#ifndef LEVELDAP_NAPI_ARGS_H
#define LEVELDAP_NAPI_ARGS_H
#include <stdint.h>
#include <string.h>
#include <node_api.h>

static int throw_type(napi_env env, const char *message) {
  napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", message);
  return 0;
}

static int throw_range(napi_env env, const char *message) {
  napi_throw_range_error(env, "ERR_OUT_OF_RANGE", message);
  return 0;
}

static int is_type(napi_env env, napi_value value, napi_valuetype wanted) {
  napi_valuetype type;
  return napi_typeof(env, value, &type) == napi_ok && type == wanted;
}

/* A Uint8Array (or Buffer): its bytes, not copied. */
static int read_bytes(napi_env env, napi_value value, const char *message, const uint8_t **data, size_t *length) {
  bool typed_array = false;
  napi_typedarray_type type;
  void *pointer = NULL;
  if (napi_is_typedarray(env, value, &typed_array) != napi_ok || !typed_array) return throw_type(env, message);
  if (napi_get_typedarray_info(env, value, &type, length, &pointer, NULL, NULL) != napi_ok || type != napi_uint8_array) {
    return throw_type(env, message);
  }
  *data = pointer;
  return 1;
}

/* An integer from min to max. */
static int read_integer(napi_env env, napi_value value, double min, double max, const char *message, uint32_t *result) {
  double number;
  if (!is_type(env, value, napi_number)) return throw_type(env, message);
  if (napi_get_value_double(env, value, &number) != napi_ok) return throw_type(env, message);
  if (!(number >= min && number <= max) || number != (double)(uint32_t)number) return throw_range(env, message);
  *result = (uint32_t)number;
  return 1;
}

/* A string of at most size - 1 UTF-8 bytes, copied NUL-terminated into text. */
static int read_string(napi_env env, napi_value value, const char *message, char *text, size_t size) {
  size_t length;
  if (!is_type(env, value, napi_string)) return throw_type(env, message);
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return throw_type(env, message);
  if (length >= size) return throw_range(env, message);
  return napi_get_value_string_utf8(env, value, text, size, &length) == napi_ok ? 1 : throw_type(env, message);
}

static int read_callback(napi_env env, napi_value value) {
  return is_type(env, value, napi_function) ? 1 : throw_type(env, "callback must be a function");
}

/* callback(error) on the JavaScript thread, the error made from a message. */
static void call_back_error(napi_env env, napi_value callback, const char *text) {
  napi_value self, message, error;
  if (napi_get_undefined(env, &self) == napi_ok
    && napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &message) == napi_ok
    && napi_create_error(env, NULL, message, &error) == napi_ok) {
    napi_call_function(env, self, callback, 1, &error, NULL);
  }
}

/* callback(null, result) on the JavaScript thread. */
static void call_back_result(napi_env env, napi_value callback, napi_value result) {
  napi_value self, argv[2];
  if (napi_get_undefined(env, &self) == napi_ok && napi_get_null(env, &argv[0]) == napi_ok) {
    argv[1] = result;
    napi_call_function(env, self, callback, 2, argv, NULL);
  }
}

/* The start of every job: its work and the JavaScript callback it answers. */
typedef struct {
  napi_async_work work;
  napi_ref callback;
} JobBase;

/* Queues the job's work (execute in the pool, complete back on the JavaScript thread); 1, or 0 when it could not. */
static int queue_job(napi_env env, JobBase *job, const char *name, napi_value callback, napi_async_execute_callback execute,
  napi_async_complete_callback complete) {
  napi_value resource;
  return napi_create_reference(env, callback, 1, &job->callback) == napi_ok
    && napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &resource) == napi_ok
    && napi_create_async_work(env, NULL, resource, execute, complete, job, &job->work) == napi_ok
    && napi_queue_async_work(env, job->work) == napi_ok;
}

/* Releases the job's callback and work (the caller wipes and frees the rest). */
static void release_job(napi_env env, JobBase *job) {
  if (job->callback) napi_delete_reference(env, job->callback);
  if (job->work) napi_delete_async_work(env, job->work);
}

/* exports[name] = function; returns 0 when it could not. */
static int export_function(napi_env env, napi_value exports, const char *name, napi_callback function) {
  napi_value value;
  return napi_create_function(env, name, NAPI_AUTO_LENGTH, function, NULL, &value) == napi_ok
    && napi_set_named_property(env, exports, name, value) == napi_ok;
}

#endif
