// clsfile's arguments for Swift's `CommandLine`, kept from the start of the process.
//
// On Linux the Swift runtime finds argv without being handed it: a static initializer of its
// CommandLine.cpp reads /proc/self/maps line by line to find the stack, then walks back from
// `environ`. Each process pays that at start whether or not it reads its arguments: about 40 µs,
// 1 % of a `clsfile stats` of a 10,000-word ODT (farm-bench, pairs of runs). glibc passes argc
// and argv to the functions of an executable's .preinit_array, which run before every other
// initializer, so this file keeps them from there and defines the runtime's entry point itself:
// with `_swift_stdlib_getUnsafeArgvArgc` defined here, the linker takes nothing from the standard
// library's CommandLine.cpp.o (its one other function, `_swift_stdlib_overrideUnsafeArgvArgc`, is
// for the interpreter's JIT), and its initializer is not in the binary.
//
// That holds when the standard library is linked statically (clsfile's release build). Linked
// with the shared library (the debug build and its tests), the runtime's own function is hidden
// inside it and this one is simply not called. `.ci/run` checks the release binary has none of
// CommandLine.cpp.o's code and takes a file name that is not UTF-8 through the arguments. Only
// with glibc: another C library may not run .preinit_array, and other systems keep the standard
// library's own function.

#include "CArguments.h"

#include <stdio.h>
#include <stdlib.h>

#if defined(__linux__) && defined(__GLIBC__)

static char **startArguments;
static int startArgumentCount;

static void keepStartArguments(int argc, char **argv, char **environment) {
    (void)environment;
    startArguments = argv;
    startArgumentCount = argc;
}

__attribute__((section(".preinit_array"), used))
static void (*const keepStartArgumentsEntry)(int, char **, char **) = keepStartArguments;

char **clsfile_start_arguments(int *count) {
    if (startArguments == NULL) {
        // Only when this file is linked into a shared library, whose .preinit_array glibc does
        // not run: Swift's CommandLine must not read an empty argv as the real one.
        fputs("clsfile: the arguments were not kept at start (no .preinit_array ran); "
              "link CArguments into an executable only\n", stderr);
        abort();
    }
    *count = startArgumentCount;
    return startArguments;
}

// The Swift runtime's declaration: SWIFT_CC(swift) SWIFT_RUNTIME_STDLIB_INTERNAL
// char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen), in the standard library's
// stdlib/public/CommandLineSupport/CommandLine.cpp.
__attribute__((swiftcall))
char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen);

__attribute__((swiftcall))
char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    return clsfile_start_arguments(outArgLen);
}

#endif
