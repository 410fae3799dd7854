/* failing_calloc.h — a calloc that fails on request, for tests of
 * out-of-memory paths. A test program that links failing_calloc.c defines
 * calloc: the runtime's calls reach it before the C library's (or a
 * sanitizer's), and it forwards them (dlsym RTLD_NEXT) unless armed:
 *  - failing_calloc_arm(min): the calling thread's calls asking for at
 *    least min bytes fail;
 *  - failing_calloc_arm_exact(n, size): any thread's calloc(n, size),
 *    exactly those arguments, fails.
 * A failing call returns NULL with errno ENOMEM. failing_calloc_disarm
 * ends both and returns how many calls failed since arming. */
#ifndef VELA_TESTS_FAILING_CALLOC_H
#define VELA_TESTS_FAILING_CALLOC_H

#include <stddef.h>

void failing_calloc_arm(size_t min);
void failing_calloc_arm_exact(size_t n, size_t size);
unsigned failing_calloc_disarm(void);

#endif
