/* log.h - messages on stderr, filtered by level.
 *
 * Levels follow pylcm: off (nothing, not even warnings), warning,
 * progress (+ what is being done and how long it took), debug (+ details).
 * Errors are not logged here: they travel back as lcm_err to the caller.
 */
#ifndef LCM_LOG_H
#define LCM_LOG_H

typedef enum lcm_log_level {
    LCM_LOG_OFF = 0,
    LCM_LOG_WARNING = 1,
    LCM_LOG_PROGRESS = 2,
    LCM_LOG_DEBUG = 3
} lcm_log_level;

void lcm_set_log_level(lcm_log_level level);
lcm_log_level lcm_get_log_level(void);
/* Parses "off|warning|progress|debug"; returns -1 if unknown. */
int lcm_log_level_by_name(const char *name);

void lcm_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lcm_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lcm_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
