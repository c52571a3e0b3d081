#ifndef CLSFILE_CTERMINAL_H
#define CLSFILE_CTERMINAL_H

#include <sys/types.h>

/// Opens a pseudo-terminal master; writes the slave's path into `name`. Returns the master fd or -1 (errno set).
int clsfile_open_pty(char *name, unsigned long length);

/// Starts `argv[0]` (searched in PATH) with every signal at its default and none blocked.
/// With `terminal` non-NULL the child gets a new session whose controlling terminal, standard input,
/// output and error are that terminal. Returns 0, or an errno value.
int clsfile_spawn(char *const argv[], const char *terminal, pid_t *pid);

/// Reads and writes a terminal's window size; 0 on success, -1 with errno set.
int clsfile_get_window_size(int fd, unsigned short *rows, unsigned short *columns);
int clsfile_set_window_size(int fd, unsigned short rows, unsigned short columns);

#endif
