/* between.c: work build/bench/launch --between does after each enqueue, to
 * weigh what a layer's instructions cost a launch where they sit in few or
 * in many cache lines (docs/notes/launch.md, sixth part):
 *
 *   near       110 times 8 nops and an add, in one loop
 *   far        the same as a chain of 110 functions 512 bytes apart
 *   data       64 one-byte loads 4160 bytes apart
 *   far+data   both
 *
 * Per launch, with the loop's own (callgrind, PoCL): near 1374 instructions
 * in 7 cache lines over 3 pages of the program; far 1153 in 115 lines over
 * 16 pages, about as many as clua's own code runs through (1101-1161
 * instructions, 105-111 lines, 14-17 pages). */
#include "between.h"

#include <stdlib.h>
#include <string.h>

#define NOPS "nop; nop; nop; nop; nop; nop; nop; nop"
#define LINKS 110

static volatile unsigned sink;
static unsigned char *area;

/* The chain, from its end back: link_ab calls the next one directly, each a
   function of its own, 512-byte aligned. */
#define LINK(cur, nxt)                                                              \
    static __attribute__((noinline, aligned(512))) unsigned link_##cur(unsigned x)   \
    {                                                                               \
        __asm__ volatile(NOPS);                                                     \
        return link_##nxt(x + 1);                                                   \
    }
#define TEN(a, n)                                                                        \
    LINK(a##9, n##0) LINK(a##8, a##9) LINK(a##7, a##8) LINK(a##6, a##7) LINK(a##5, a##6) \
    LINK(a##4, a##5) LINK(a##3, a##4) LINK(a##2, a##3) LINK(a##1, a##2) LINK(a##0, a##1)
static unsigned link_110(unsigned x) { return x; }
TEN(10, 11) TEN(9, 10) TEN(8, 9) TEN(7, 8) TEN(6, 7) TEN(5, 6) TEN(4, 5) TEN(3, 4) TEN(2, 3) TEN(1, 2) TEN(0, 1)

static void far(void) { sink = link_00(sink); }

static void near(void)
{
    unsigned x = sink;
    for (unsigned i = 0; i < LINKS; i++) {
        __asm__ volatile(NOPS : "+r"(x));
        x += i;
    }
    sink = x;
}

static void data(void)
{
    unsigned x = sink;
    for (size_t i = 0; i < 64; i++)
        x += area[i * 4160 + (x & 7)];
    sink = x;
}

static void far_data(void)
{
    far();
    data();
}

between_fn between_named(const char *name)
{
    if (!area && !(area = calloc(64, 4160)))
        return NULL;
    return !strcmp(name, "near") ? near
           : !strcmp(name, "far") ? far
           : !strcmp(name, "data") ? data
           : !strcmp(name, "far+data") ? far_data
           : NULL;
}
