#ifndef CLSFILE_CINFLATE_SHIM_H
#define CLSFILE_CINFLATE_SHIM_H

#include <zlib.h>

/// Starts inflating raw DEFLATE data, as ZIP entries hold it (no zlib or gzip header).
/// `inflateInit2` is a macro, which Swift cannot call. Returns a zlib result code.
static inline int clsfile_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -MAX_WBITS);
}

/// Starts deflating to raw DEFLATE data (no header or checksum) at a level 0–9.
static inline int clsfile_deflate_init_raw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}

#endif
