/* What clua asks of the compiler and the sanitizer. */
#ifndef CLUA_COMPILER_H
#define CLUA_COMPILER_H

/* The code a launch runs through, laid out together: GCC puts CLUA_HOT
   functions in .text.hot, which the linker groups, and CLUA_COLD ones (a
   rare path taken out of a hot function) in .text.unlikely (docs/notes/launch.md,
   sixth part). */
#define CLUA_HOT __attribute__((hot))
#define CLUA_COLD __attribute__((cold, noinline))
#define CLUA_NOINLINE __attribute__((noinline))

/* Blocks kept for reuse (alloc.c, and evpool.c's freed event blocks) are
   poisoned under AddressSanitizer while they wait, so that a use after
   free is still reported. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#endif
