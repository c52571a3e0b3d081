#ifndef CLSFILE_CTURBOJPEG_SHIM_H
#define CLSFILE_CTURBOJPEG_SHIM_H

// libjpeg-turbo's TurboJPEG API: it sets up libjpeg's setjmp itself and returns error codes
// (tjGetErrorStr2 says why), so no longjmp crosses a Swift frame, unlike libjpeg's own API.
#include <turbojpeg.h>

#endif
