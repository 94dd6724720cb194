/* host.h - what the host machine offers every layer: its threads and a clock. */
#ifndef LCM_HOST_H
#define LCM_HOST_H

/* The host threads of a parallel part: `asked` (--threads) when positive,
 * else OpenMP's default (OMP_NUM_THREADS or the cores), at most
 * LCM_MAX_THREADS (a huge OMP_NUM_THREADS overflowed libgomp's stack). */
int base_host_threads(int asked);
/* Seconds on a monotonic clock, for durations. */
double base_now_seconds(void);

#endif
