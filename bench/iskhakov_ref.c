/* iskhakov_ref.c - see iskhakov_ref.h. */
#include "iskhakov_ref.h"
#include "files.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A table of numbers, one row a line, separated by commas. */
static double *read_table(const char *path, int *rows, int *cols, lcm_err *err)
{
    char *text = sys_read_file(path, NULL, err);
    if (!text) return NULL;
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

int iskhakov_worst_mse(const lcm_solution *sol, const char *dir, const char *case_name, int stride, double worst[2],
                       int at[2], lcm_err *err)
{
    const ir_model *m = core_solution_model(sol);
    const char *regimes[] = {"working_life", "retirement"}, *files[] = {"worker", "retired"};
    for (int k = 0; k < 2; ++k) {
        char name[256];
        snprintf(name, sizeof name, "iskhakov_2017_%s__values_%s.csv", case_name, files[k]);
        char *path = base_path_join(dir, name);
        int rows, cols, r = ir_find_regime(m, regimes[k]);
        double *ref = read_table(path, &rows, &cols, err);
        int bad = !ref || cols != 100 || rows != m->nperiods - 1 || r < 0;
        if (bad && r < 0) base_fail(err, LCM_E_INPUT, "%s: the model has no regime '%s'", path, regimes[k]);
        else if (bad && (ref || !err->code))
            base_fail(err, LCM_E_INPUT, "%s: %d rows of %d values; the model has %d periods", path, ref ? rows : 0,
                     ref ? cols : 0, m->nperiods);
        free(path);
        if (bad) {
            free(ref);
            return err->code;
        }
        worst[k] = 0;
        for (int i = 2; i < cols; ++i) {
            double mse = 0;
            for (int t = 0; t < rows; ++t) {
                double d = lcm_solution_value(sol, t, r, (lcm_index)i * stride) - ref[t * cols + i];
                mse += d * d / rows;
            }
            if (!(mse <= worst[k])) {
                worst[k] = mse;
                if (at) at[k] = i;
            }
        }
        free(ref);
    }
    return 0;
}
