/* sim_memory.h - will a simulation fit?  (solve/memory.h: the room and the bill.) */
#ifndef LCM_SIM_MEMORY_H
#define LCM_SIM_MEMORY_H

#include "memory.h"

/* Whether simulating `subjects` subjects with solver sv fits (the panel
 * and the subjects on the host, a batch on each device); panel_held: the
 * bytes of an earlier panel the simulation takes over (lcm_simulate_again). */
int sim_memory_check_simulate(const lcm_solver *sv, lcm_index subjects, const lcm_sim_options *o, size_t panel_held,
                              lcm_err *err);

#endif
