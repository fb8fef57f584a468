/*
 * Two system calls Node 20 does not offer, for the connection layer and its memory:
 * - tcpState(fd): the kernel's TCP state of a socket (TCP_INFO). A connection whose reading is
 *   paused (its operations queue is full) cannot see the client's FIN through Node, which reads
 *   it only after every byte before it; the kernel knows at once (CLOSE_WAIT, or CLOSE after a
 *   reset), so the server can drop the work of a client that left.
 * - mallocTrim(): glibc's malloc_trim(0), which hands the free pages inside malloc's arenas back
 *   to the kernel. Socket buffers are malloc'd outside V8's heap; after thousands of clients
 *   leave, their freed memory otherwise stays in the process's resident set.
 * - exec(path, argv): execv(2), the process image replaced, its pid kept (bin/leveldap.js
 *   starts `serve` again with a V8 flag that cannot be set once V8 runs; a supervisor, a test
 *   or an operator's kill -9 still names the server's pid). Returns only on failure, throwing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <node_api.h>

static napi_value tcp_state(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 1
      || napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) {
    napi_throw_type_error(env, NULL, "tcpState(fd): fd must be a non-negative integer");
    return NULL;
  }
  struct tcp_info tcp;
  socklen_t length = sizeof(tcp);
  memset(&tcp, 0, sizeof(tcp));
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &tcp, &length) != 0) {
    napi_throw_error(env, NULL, strerror(errno));
    return NULL;
  }
  napi_value result;
  napi_create_int32(env, tcp.tcpi_state, &result);
  return result;
}

static napi_value malloc_trim_all(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  napi_get_boolean(env, malloc_trim(0) == 1, &result);
  return result;
}

/* A JavaScript string as a malloc'd C string (NULL when it is not a string). */
static char *c_string(napi_env env, napi_value value) {
  size_t length;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return NULL;
  char *text = malloc(length + 1);
  if (text != NULL) napi_get_value_string_utf8(env, value, text, length + 1, &length);
  return text;
}

static napi_value exec_image(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  uint32_t count = 0;
  bool is_array = false;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 2
      || napi_is_array(env, argv[1], &is_array) != napi_ok || !is_array
      || napi_get_array_length(env, argv[1], &count) != napi_ok || count == 0) {
    napi_throw_type_error(env, NULL, "exec(path, argv): argv must be a non-empty array of strings");
    return NULL;
  }
  char *path = c_string(env, argv[0]);
  char **args = calloc(count + 1, sizeof(char *));
  int ok = path != NULL && args != NULL;
  for (uint32_t i = 0; ok && i < count; i++) {
    napi_value item;
    ok = napi_get_element(env, argv[1], i, &item) == napi_ok && (args[i] = c_string(env, item)) != NULL;
  }
  /* Node marks its standard input, output and error close-on-exec: the new image keeps them. */
  for (int fd = 0; ok && fd <= 2; fd++) {
    int flags = fcntl(fd, F_GETFD);
    if (flags != -1) fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
  }
  if (ok) execv(path, args);
  int failure = ok ? errno : EINVAL;
  for (uint32_t i = 0; args != NULL && i < count; i++) free(args[i]);
  free(args);
  free(path);
  napi_throw_error(env, NULL, strerror(failure));
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "tcpState", NAPI_AUTO_LENGTH, tcp_state, NULL, &fn);
  napi_set_named_property(env, exports, "tcpState", fn);
  napi_create_function(env, "mallocTrim", NAPI_AUTO_LENGTH, malloc_trim_all, NULL, &fn);
  napi_set_named_property(env, exports, "mallocTrim", fn);
  napi_create_function(env, "exec", NAPI_AUTO_LENGTH, exec_image, NULL, &fn);
  napi_set_named_property(env, exports, "exec", fn);
  return exports;
}
