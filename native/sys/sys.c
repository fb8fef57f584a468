/*
 * Two system calls Node 20 does not offer, for the connection layer and its memory:
 * - tcpState(fd): the kernel's TCP state of a socket (TCP_INFO). A connection whose reading is
 *   paused (its operations queue is full) cannot see the client's FIN through Node, which reads
 *   it only after every byte before it; the kernel knows at once (CLOSE_WAIT, or CLOSE after a
 *   reset), so the server can drop the work of a client that left.
 * - mallocTrim(): glibc's malloc_trim(0), which hands the free pages inside malloc's arenas back
 *   to the kernel. Socket buffers are malloc'd outside V8's heap; after thousands of clients
 *   leave, their freed memory otherwise stays in the process's resident set.
 */
#include <errno.h>
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

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "tcpState", NAPI_AUTO_LENGTH, tcp_state, NULL, &fn);
  napi_set_named_property(env, exports, "tcpState", fn);
  napi_create_function(env, "mallocTrim", NAPI_AUTO_LENGTH, malloc_trim_all, NULL, &fn);
  napi_set_named_property(env, exports, "mallocTrim", fn);
  return exports;
}
