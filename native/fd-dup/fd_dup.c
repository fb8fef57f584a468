/*
 * Listening sockets for `serve --threads` (Node 20 can neither dup a descriptor nor set
 * SO_REUSEPORT):
 * - listenReusePort(address, port): a TCP socket bound with SO_REUSEPORT and listening; one per
 *   serving thread on the same port, so the kernel spreads new connections over the threads (by
 *   the connection's addresses) instead of waking every thread for each and letting the first
 *   take a whole burst.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <node_api.h>

/* Binds and listens; returns the descriptor, or -1 with errno set (the socket closed). */
static int bound_listener(const struct sockaddr *address, socklen_t length, int family) {
  int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  int on = 1;
  int off = 0;
  if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) != 0
      || setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)) != 0
      || (family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) != 0)
      || bind(fd, address, length) != 0 || listen(fd, 511) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

/* listenReusePort(address, port) -> [fd, port]: port 0 picks a free port (the one bound is returned). */
static napi_value listen_reuse_port(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  char text[64];
  size_t length;
  int32_t port;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 2
      || napi_get_value_string_utf8(env, argv[0], text, sizeof(text), &length) != napi_ok
      || napi_get_value_int32(env, argv[1], &port) != napi_ok || port < 0 || port > 65535) {
    napi_throw_type_error(env, NULL, "listenReusePort(address, port): an IP address and a port from 0 to 65535");
    return NULL;
  }
  struct sockaddr_storage storage;
  memset(&storage, 0, sizeof(storage));
  struct sockaddr_in *v4 = (struct sockaddr_in *)&storage;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&storage;
  int family;
  socklen_t size;
  if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
    family = AF_INET; v4->sin_family = AF_INET; v4->sin_port = htons((uint16_t)port); size = sizeof(*v4);
  } else if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
    family = AF_INET6; v6->sin6_family = AF_INET6; v6->sin6_port = htons((uint16_t)port); size = sizeof(*v6);
  } else {
    napi_throw_type_error(env, NULL, "listenReusePort: not an IP address");
    return NULL;
  }
  int fd = bound_listener((struct sockaddr *)&storage, size, family);
  if (fd < 0) {
    int failure = errno;
    const char *name = failure == EADDRINUSE ? "EADDRINUSE" : failure == EACCES ? "EACCES"
      : failure == EADDRNOTAVAIL ? "EADDRNOTAVAIL" : "ESOCKET";
    napi_value code, message, error;
    napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code);
    napi_create_string_utf8(env, strerror(failure), NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, code, message, &error);
    napi_throw(env, error);
    return NULL;
  }
  socklen_t bound_size = sizeof(storage);
  getsockname(fd, (struct sockaddr *)&storage, &bound_size);
  int bound_port = ntohs(family == AF_INET ? v4->sin_port : v6->sin6_port);
  napi_value result, fd_value, port_value;
  napi_create_array_with_length(env, 2, &result);
  napi_create_int32(env, fd, &fd_value);
  napi_create_int32(env, bound_port, &port_value);
  napi_set_element(env, result, 0, fd_value);
  napi_set_element(env, result, 1, port_value);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "listenReusePort", NAPI_AUTO_LENGTH, listen_reuse_port, NULL, &fn);
  napi_set_named_property(env, exports, "listenReusePort", fn);
  return exports;
}
