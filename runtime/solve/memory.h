/* memory.h - will it fit?  The memory a solve (here) or a simulation
 * (sim/sim_memory.c) is going to
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
int solve_host_memory_room(double *bytes, int *whole, char *what, size_t size, lcm_err *err);

/* What a cgroup's memory usage (memory.current, memory.usage_in_bytes)
 * leaves no room for: usage less the inactive file pages that its
 * memory.stat at stat_path gives under `key` (cgroup v2 "inactive_file",
 * v1 "total_inactive_file"); usage itself when the file or key is missing
 * or the figure is not below usage. */
double solve_cgroup_used(const char *stat_path, const char *key, double usage);

/* Whether the solves of worker w fit: host memory for `workers` workers
 * like it in this process (each holds a solution and the grids), and its
 * device's memory for a device backend.  Called before the worker's grid
 * buffers are made. */
int solve_memory_check_solve(const lcm_worker *w, int workers, lcm_err *err);

enum { LCM_BILL_HOST, LCM_BILL_DEVICE };

typedef struct lcm_bill_item { /* one line of a bill: what, where and how much */
    int side;
    double bytes;
    char *text;
} lcm_bill_item;

/* What a piece of work is going to allocate, line by line, host and device
 * apart: solve_memory_check_solve here and the simulation's (sim/sim_memory.c)
 * fill one and settle it against the room there is. */
typedef struct lcm_bill {
    lcm_bill_item *items;
    size_t n, cap;
    double total[2];
    double held[2]; /* what this process holds that the work takes over (a simulation's kept buffers) */
} lcm_bill;

/* Adds a line of `bytes` (none when not positive) to side's total. */
void solve_bill_add(lcm_bill *b, int side, double bytes, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void solve_bill_free(lcm_bill *b);
/* A count into b: whole below 1e15, else like 1.2e+21. */
void solve_put_count(lcm_sb *b, double x);
/* 0 when the bill fits the host's room (solve_host_memory_room) and be's
 * device; else LCM_E_MEMORY saying what `doing` needs, what there is, the
 * largest lines and the advice of the side that does not fit. */
int solve_bill_settle(lcm_bill *b, const char *doing, const lcm_backend *be, const char *host_advice,
                    const char *device_advice, lcm_err *err);

#endif
