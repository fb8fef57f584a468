/*
 * dup(fd): a second descriptor for an open socket, close-on-exec. `serve --threads` gives each
 * thread its own descriptor of the one listening socket, so each thread closes only its own
 * (Node 20 can neither dup a descriptor nor set SO_REUSEPORT).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <node_api.h>

static napi_value throw_error(napi_env env, const char *message) {
  napi_throw_error(env, NULL, message);
  return NULL;
}

static napi_value dup_fd(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 1) {
    return throw_error(env, "dup(fd): one argument expected");
  }
  if (napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) {
    napi_throw_type_error(env, NULL, "dup(fd): fd must be a non-negative integer");
    return NULL;
  }
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (copy < 0) return throw_error(env, strerror(errno));
  napi_value result;
  napi_create_int32(env, copy, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "dup", NAPI_AUTO_LENGTH, dup_fd, NULL, &fn);
  napi_set_named_property(env, exports, "dup", fn);
  return exports;
}
