#ifndef CLSFILE_CARGUMENTS_H
#define CLSFILE_CARGUMENTS_H

#include <stdlib.h> /* defines __GLIBC__ with glibc */

#if defined(__linux__) && defined(__GLIBC__)
/// The process's argument vector as glibc handed it to the executable, before any initializer
/// ran: the strings of `argv` (ending with a null pointer), their count in `count`.
char **clsfile_start_arguments(int *count);
#endif

#endif
