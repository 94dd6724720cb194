/* memory.h - will it fit?  The memory a solve or a simulation is going to
 * allocate, estimated from the model's sizes before anything large is
 * allocated, against what this process may still use.  A run too large for
 * the machine is refused at once with an error (LCM_E_MEMORY) that names
 * the regime and the grids that make it large and gives the figure needed
 * and the figure available, instead of being killed by the system once the
 * memory is full (or failing part way under `ulimit -v`).
 *
 * What the host may use is the least of: the memory available on the
 * machine (MemAvailable), what the process's cgroup still allows, and the
 * room left under the address-space and data limits (ulimit -v, ulimit -d).
 * LCM_MEMORY_LIMIT (bytes, or a size like 64G) replaces that figure.  A
 * device backend's share is checked against its device's free memory.
 */
#ifndef LCM_MEMORY_H
#define LCM_MEMORY_H

#include "solver_internal.h"

/* Host memory this process may still allocate (bytes) and what bounds it,
 * e.g. "the address-space limit, ulimit -v" (into what[size]); *whole: the
 * figure is all the work may use (LCM_MEMORY_LIMIT), memory the process
 * already holds included, not what is still free.  Fails (LCM_E_USAGE)
 * only on a malformed LCM_MEMORY_LIMIT. */
int lcm_host_memory_room(double *bytes, int *whole, char *what, size_t size, lcm_err *err);

/* What a cgroup's memory usage (memory.current, memory.usage_in_bytes)
 * leaves no room for: usage less the inactive file pages that its
 * memory.stat at stat_path gives under `key` (cgroup v2 "inactive_file",
 * v1 "total_inactive_file"); usage itself when the file or key is missing
 * or the figure is not below usage. */
double lcm_cgroup_used(const char *stat_path, const char *key, double usage);

/* Whether the solves of worker w fit: host memory for `workers` workers
 * like it in this process (each holds a solution and the grids), and its
 * device's memory for a device backend.  Called before the worker's grid
 * buffers are made. */
int lcm_memory_check_solve(const lcm_worker *w, int workers, lcm_err *err);

/* Whether simulating `subjects` subjects with solver sv fits (the panel
 * and the subjects on the host, a batch on each device); panel_held: the
 * bytes of an earlier panel the simulation takes over (lcm_simulate_again). */
int lcm_memory_check_simulate(const lcm_solver *sv, lcm_index subjects, const lcm_sim_options *o, size_t panel_held,
                              lcm_err *err);

#endif
