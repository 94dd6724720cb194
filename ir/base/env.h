/* env.h - environment switches. */
#ifndef LCM_ENV_H
#define LCM_ENV_H

#include "fail.h"

/* Whether the environment switch `name` (one of the list in env.c) is on:
 * "1".  Unset, empty and "0" are off; any other value is refused by
 * base_env_switches_check, which each program and lcm_solver_new call
 * before they read a switch (until then it counts as off: an unclear
 * LCM_TRUST_MODEL must not open the sandbox). */
int base_env_switch(const char *name);
/* LCM_E_USAGE naming the first switch whose value is neither 1 nor 0. */
int base_env_switches_check(lcm_err *err);

#endif
