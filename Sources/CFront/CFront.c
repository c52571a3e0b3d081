// The `clsfile` front hands every call but `stats` and `hook` (with the hook agent on) to
// clsfile-main before anything of its own starts.
//
// The front answers two commands itself (a plain `stats`, and a `hook` call its agent takes) and
// runs clsfile-main in its place for all others; its Swift code does that too, but only after the
// runtime and the program have started: about half a millisecond that every other command would
// pay for nothing. glibc runs the functions of an executable's .preinit_array before every other
// initializer, with argc, argv and the environment, so the hand-over is made from there. When it
// cannot be made (no clsfile-main beside the program), the program goes on, and its Swift code says
// why (see MainProgram).
//
// Only in a program whose file is named `clsfile`: the test and benchmark programs that depend on
// the front link this file too, and must run themselves.
#include "CFront.h"
#include <limits.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__) && defined(__GLIBC__)
static void handOverEarly(int argc, char **argv, char **environment) {
    if (argc > 1 && strcmp(argv[1], "stats") == 0) return;
    // A hook call is the front's unless the agent is turned off (HookAgentAddress.switchVariable).
    // The environment is read from the argument: getenv does not work this early.
    if (argc > 1 && strcmp(argv[1], "hook") == 0) {
        int agentOff = 0;
        for (char **entry = environment; entry != NULL && *entry != NULL; entry++) {
            if (strcmp(*entry, "CLSFILE_HOOK_AGENT=off") == 0) agentOff = 1;
        }
        if (!agentOff) return;
    }
    static const char main_name[] = "clsfile-main";
    char path[PATH_MAX + sizeof main_name];
    ssize_t length = readlink("/proc/self/exe", path, PATH_MAX);
    if (length <= 0) return;
    path[length] = '\0';
    char *name = strrchr(path, '/');
    if (name == NULL || strcmp(name + 1, "clsfile") != 0) return;
    memcpy(name + 1, main_name, sizeof main_name);
    execve(path, argv, environment);
}

__attribute__((section(".preinit_array"), used))
static void (*const handOverEarlyEntry)(int, char **, char **) = handOverEarly;
#endif
