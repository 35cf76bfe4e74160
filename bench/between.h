/* between.h: work done after each enqueue by build/bench/launch --between
 * (between.c). */
#ifndef BENCH_BETWEEN_H
#define BENCH_BETWEEN_H

typedef void (*between_fn)(void);

/* "near", "far", "data" or "far+data"; NULL for any other name. */
between_fn between_named(const char *name);

#endif
