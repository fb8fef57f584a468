/*
 * Snappy compression through Debian's libsnappy (its C interface, snappy-c.h), for the LevelDB
 * tables a bulk load writes itself (src/store/tables/): LevelDB compresses each block with snappy,
 * and so must they. One call a block, into a buffer the caller keeps: no allocation per call.
 *
 *   compressInto(input: Uint8Array, output: Uint8Array): number
 *     the compressed length, written at the start of output, which must hold at least
 *     maxCompressedLength(input.length) bytes
 *   maxCompressedLength(length: number): number
 */
#include <snappy-c.h>
#include "../common/napi-args.h"

static napi_value compress_into(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  const uint8_t *input, *output;
  size_t input_length, output_length;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 2) {
    throw_type(env, "compressInto(input, output): two Uint8Arrays");
    return NULL;
  }
  if (!read_bytes(env, argv[0], "compressInto: input must be a Uint8Array", &input, &input_length)
      || !read_bytes(env, argv[1], "compressInto: output must be a Uint8Array", &output, &output_length)) {
    return NULL;
  }
  if (output_length < snappy_max_compressed_length(input_length)) {
    throw_range(env, "compressInto: output is smaller than maxCompressedLength(input.length)");
    return NULL;
  }
  size_t compressed = output_length;
  if (snappy_compress((const char *)input, input_length, (char *)output, &compressed) != SNAPPY_OK) {
    napi_throw_error(env, NULL, "snappy_compress failed");
    return NULL;
  }
  napi_value result;
  napi_create_double(env, (double)compressed, &result);
  return result;
}

static napi_value max_compressed_length(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  double length;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 1
      || napi_get_value_double(env, argv[0], &length) != napi_ok || !(length >= 0) || length > 1e15) {
    throw_type(env, "maxCompressedLength(length): a non-negative length");
    return NULL;
  }
  napi_value result;
  napi_create_double(env, (double)snappy_max_compressed_length((size_t)length), &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "compressInto", NAPI_AUTO_LENGTH, compress_into, NULL, &fn);
  napi_set_named_property(env, exports, "compressInto", fn);
  napi_create_function(env, "maxCompressedLength", NAPI_AUTO_LENGTH, max_compressed_length, NULL, &fn);
  napi_set_named_property(env, exports, "maxCompressedLength", fn);
  return exports;
}
