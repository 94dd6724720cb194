/* test_assert.c - lcm_assert: with LCM_ASSERTS a false condition aborts
 * naming file:line and the condition; without, it compiles to nothing (and
 * does not evaluate the condition). */
#include <stdio.h>

#include "base.h"

static int calls;
__attribute__((unused)) static int count(void) { return ++calls; }

int main(void)
{
    lcm_assert(1 + 1 == 2);
#ifndef LCM_ASSERTS
    lcm_assert(count() == 99); /* not evaluated */
    if (calls) return 1;
    puts("lcm_assert is off");
    return 0;
#else
    lcm_assert(count() == 1);
    lcm_assert(1 + 1 == 3);
    return 0; /* not reached */
#endif
}
