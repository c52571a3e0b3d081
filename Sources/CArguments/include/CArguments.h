#ifndef CLSFILE_CARGUMENTS_H
#define CLSFILE_CARGUMENTS_H

/// The process's argument vector as the C library handed it to the executable, before any
/// initializer ran: the strings of `argv` (ending with a null pointer), their count in `count`.
char **clsfile_start_arguments(int *count);

#endif
