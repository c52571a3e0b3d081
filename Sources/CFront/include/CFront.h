#ifndef CLSFILE_CFRONT_H
#define CLSFILE_CFRONT_H

// CFront has no functions to call: see CFront.c.

#endif
