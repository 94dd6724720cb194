/* Iskhakov, Jørgensen, Rust & Schjerning (2017): our V against the
 * published closed-form tables (tests/reference/iskhakov_2017, a copy of
 * the project's shared reference data).  Per
 * wealth point, the mean over periods of the squared difference must be
 * below 0.15 everywhere but at the two lowest points. */
#include <stdlib.h>

#include "check.h"
#include "testlib.h"

static double *read_table(const char *path, int *rows, int *cols)
{
    lcm_err err = {0};
    char *text = lcm_read_file(path, NULL, &err);
    if (!text) {
        fprintf(stderr, "%s\n", err.msg);
        return NULL;
    }
    double *v = NULL;
    size_t n = 0, cap = 0;
    *rows = *cols = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        int c = 0;
        for (char *p = line; *p;) {
            char *end;
            double x = strtod(p, &end);
            if (end == p) break;
            LCM_GROW(v, cap, n + 1);
            v[n++] = x, ++c;
            p = *end == ',' ? end + 1 : end;
        }
        *cols = c;
        ++*rows;
    }
    free(text);
    return v;
}

static void compare(const char *name, const char *define, const char *params)
{
    const char *defines[] = {define, NULL};
    lcm_model *model = NULL;
    lcm_solution *sol = NULL;
    lcm_err err = {0};
    CHECK_OK(test_solve("models/iskhakov_2017.lua", defines, params, LCM_BACKEND_CPU, 64, &model, &sol, &err));
    if (!sol) return;
    const ir_model *m = lcm_model_ir(model);
    const char *regimes[] = {"working_life", "retirement"}, *files[] = {"worker", "retired"};
    for (int k = 0; k < 2; ++k) {
        char rel[256];
        snprintf(rel, sizeof rel, "tests/reference/iskhakov_2017/iskhakov_2017_%s__values_%s.csv", name, files[k]);
        char *path = test_path(rel);
        int rows, cols;
        double *ref = read_table(path, &rows, &cols);
        free(path);
        CHECK_MSG(ref && cols == 100 && rows == m->nperiods - 1, "%s: reference table shape", rel);
        if (!ref) continue;
        int r = ir_find_regime(m, regimes[k]);
        double worst = 0;
        int at = -1;
        for (int i = 2; i < cols; ++i) {
            double mse = 0;
            for (int t = 0; t < rows; ++t) {
                double d = lcm_solution_value(sol, t, r, i) - ref[t * cols + i];
                mse += d * d / rows;
            }
            if (!(mse <= worst)) worst = mse, at = i;
        }
        printf("%s / %s: worst per-point MSE %.5f at wealth point %d\n", name, regimes[k], worst, at);
        CHECK_MSG(worst < 0.15, "%s / %s: MSE %.4f at point %d", name, regimes[k], worst, at);
        free(ref);
    }
    lcm_solution_free(sol);
    lcm_model_free(model);
}

int main(void)
{
    compare("five_periods", "n_periods=6", "models/iskhakov_2017.params.lua");
    compare("low_delta", "n_periods=4", "models/iskhakov_2017_low_delta.params.lua");
    CHECK_DONE();
}
