#ifndef SEARCHLIGHT_CZLIB_SHIM_H
#define SEARCHLIGHT_CZLIB_SHIM_H

#include <zlib.h>

// inflateInit2 and deflateInit2 are macros that pass the library version and the struct
// size; Swift cannot call macros.
static inline int sl_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 32);  // 32: accept gzip or zlib headers
}

static inline int sl_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // 16: write a gzip header
}

#endif
