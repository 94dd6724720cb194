/* test_check_policy.c - lcm_solver_options.checks, the check policy, is the
 * solver's own and the log level only says what is printed: on a model
 * whose V is NaN (tests/bad_input/models/nan_log.lua), raise is an error
 * (LCM_E_NUMERIC, no solution), warn a warning and a solution, off neither,
 * at every log level (warn's warning is printed unless the level is off).
 * Also the policy's names and a policy out of the enum.
 *
 *   check_policy DIR     (DIR: lcmgen tests/bad_input/models/nan_log.lua -o DIR)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lcm.h"

static int failures;
#define CHECK(c)                                                                   \
    do {                                                                           \
        if (!(c)) fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c), ++failures; \
    } while (0)

/* Solves with `checks` at `level`, stderr caught into text[len]: the status. */
static int solve(const lcm_model *m, lcm_check_policy checks, lcm_log_level level, int *solved, char *text, size_t len)
{
    lcm_err err = {0};
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .checks = checks};
    lcm_solver *sv = NULL;
    lcm_solution *sol = NULL;
    lcm_pvalue *p = lcm_pv_table();
    fflush(stderr);
    FILE *caught = tmpfile();
    int saved = dup(2);
    if (!caught || saved < 0) return -1;
    dup2(fileno(caught), 2);
    lcm_set_log_level(level);
    int rc = lcm_solver_new(m, &o, &sv, &err);
    if (!rc) rc = lcm_solve(sv, p, &sol, &err);
    fflush(stderr);
    dup2(saved, 2), close(saved);
    rewind(caught);
    size_t n = fread(text, 1, len - 1, caught);
    text[n] = 0;
    fclose(caught);
    if (rc == LCM_E_NUMERIC) CHECK(strstr(err.msg, "V is NaN") != NULL);
    *solved = sol != NULL;
    lcm_solution_free(sol), lcm_solver_free(sv), lcm_pv_free(p);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    lcm_err err = {0};
    lcm_model *m = NULL;
    if (lcm_model_open_dir(argv[1], &m, &err)) {
        fprintf(stderr, "check_policy: %s\n", err.msg);
        return 1;
    }
    CHECK(lcm_check_policy_by_name("raise") == LCM_CHECKS_RAISE && lcm_check_policy_by_name("warn") == LCM_CHECKS_WARN &&
          lcm_check_policy_by_name("off") == LCM_CHECKS_OFF);
    CHECK(lcm_check_policy_by_name("loud") == -1 && lcm_check_policy_by_name(NULL) == -1);
    const lcm_log_level levels[] = {LCM_LOG_OFF, LCM_LOG_WARNING, LCM_LOG_INFO, LCM_LOG_PROGRESS, LCM_LOG_DEBUG};
    const lcm_check_policy policies[] = {LCM_CHECKS_DEFAULT, LCM_CHECKS_RAISE, LCM_CHECKS_WARN, LCM_CHECKS_OFF};
    char text[1 << 16];
    for (size_t l = 0; l < sizeof levels / sizeof *levels; ++l)
        for (size_t c = 0; c < sizeof policies / sizeof *policies; ++c) {
            int solved = 0, rc = solve(m, policies[c], levels[l], &solved, text, sizeof text);
            int warned = strstr(text, "warning: regime 'dead'") && strstr(text, "V is NaN");
            if (policies[c] == LCM_CHECKS_DEFAULT || policies[c] == LCM_CHECKS_RAISE) {
                CHECK(rc == LCM_E_NUMERIC && !solved && !warned);
            } else if (policies[c] == LCM_CHECKS_WARN) {
                CHECK(rc == 0 && solved);
                CHECK(warned == (levels[l] != LCM_LOG_OFF));
            } else {
                CHECK(rc == 0 && solved && !strstr(text, "V is NaN"));
            }
            if (failures) fprintf(stderr, "check_policy: policy %d at level %d: rc %d\n%s", (int)policies[c], (int)levels[l], rc, text);
        }
    /* a policy outside the enum is a usage error */
    lcm_solver_options o = {.backend = LCM_BACKEND_CPU, .checks = (lcm_check_policy)7};
    lcm_solver *sv = NULL;
    CHECK(lcm_solver_new(m, &o, &sv, &err) == LCM_E_USAGE && !sv && strstr(err.msg, "lcm_check_policy"));
    lcm_model_free(m);
    if (failures) fprintf(stderr, "check_policy: %d failures\n", failures);
    return failures != 0;
}
