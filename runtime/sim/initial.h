/* initial.h - initial conditions of a simulated panel.
 *
 * One subject per row: the regime it starts in, the age it starts at (each
 * subject appears in the panel from its own start on), and the values of
 * its regime's states.  Read from CSV (a header row of column names) or
 * HDF5 (one 1-D dataset per column at the root), validated against the
 * model; every problem is one LCM_E_INPUT error naming the file, the line
 * (CSV) or dataset (HDF5), the column and the value (LCM_E_IO when the file
 * cannot be read).
 */
#ifndef LCM_INITIAL_H
#define LCM_INITIAL_H

#include "ir.h"
#include "kernel_abi.h"
#include "lcm.h"
#include "vars.h"

struct lcm_initial {
    lcm_index n;          /* subjects; subject i has global id i */
    int nslots;           /* ir_vars state slots */
    int *regime;          /* [n] regime id */
    int *period;          /* [n] start period (index of the start age) */
    double *x;            /* [n * nslots] state values by slot (codes for discrete states), NaN if not given */
    unsigned char *given; /* [n * nslots] 1 where the file gave the value */
    char *source_hash;    /* the model's it was read for (ir_model.source_hash), or NULL */
    char digest[65];      /* SHA-256 (hex) of the subjects in an MPI job, whose ranks must hold the same
                           * (simulate.c); empty outside one */
};

/* Reads `path` (.csv, or .h5 / .hdf5) for model m (lcm.h: lcm_initial_read). */
int sim_initial_read_ir(const ir_model *m, const char *path, lcm_initial **out, lcm_err *err);
/* Parses CSV text (`path` only names it in messages). */
int sim_initial_parse_csv(const ir_model *m, const char *path, const char *text, lcm_initial **out, lcm_err *err);

/* A column of initial conditions: cell i is the text text[i] where text
 * and text[i] are set, else the number num[i] (NaN or "" is no value). */
typedef struct lcm_initial_column {
    char *name;
    size_t len;
    double *num;
    char **text;
} lcm_initial_column;

/* Subjects from columns of equal length (HDF5 datasets; the lists of an
 * --initial .lua file, runtime/cli/initial_lua.c), validated like CSV.
 * Messages name `path`, "<noun> '<column>'" and the subject; `expected`
 * says what the input should hold when it holds no subject. */
int sim_initial_from_columns(const ir_model *m, const char *path, const char *noun, const lcm_initial_column *cols,
                             int n, const char *expected, lcm_initial **out, lcm_err *err);
void sim_initial_columns_free(lcm_initial_column *cols, int n);

#endif
