#ifndef CLSFILE_CPNG_SHIM_H
#define CLSFILE_CPNG_SHIM_H

// libpng's simplified API (png_image_…): it keeps libpng's setjmp/longjmp error handling inside
// libpng and reports through png_image.warning_or_error and .message, so no longjmp crosses a
// Swift frame. Use nothing else of libpng from Swift.
#include <png.h>

#endif
