/* params.h - parameter values as users write them, and their resolution
 * into the flat buffer the kernels read.
 *
 * A params file is a tree: numbers, lists and tables keyed by name.  A
 * parameter used by function f of regime r can be given at model level
 * (`wage = 20`), regime level (`working = {wage = 20}`) or function level
 * (`working = {labor_income = {wage = 20}}`); the same parameter at two
 * levels is an error, as is a parameter no function uses.  Arrays are
 * nested lists (first element = code 0) or, along a categorical dimension,
 * tables keyed by label.
 */
#ifndef LCM_PARAMS_H
#define LCM_PARAMS_H

#include "ir.h"
#include "lcm.h"

typedef enum lcm_pv_kind { LCM_PV_NUM, LCM_PV_LIST, LCM_PV_TABLE } lcm_pv_kind;

/* Tables and lists nest at most this deep in a tree, numbers below them:
 * deeper than any parameter array, and the recursions over a tree stay
 * shallow (a params file nests no deeper: params_lua.c). */
#define LCM_PV_MAX_DEPTH 100

struct lcm_pvalue {
    lcm_pv_kind kind;
    double num;
    int n, cap;
    char **keys; /* TABLE: one per item */
    struct lcm_pvalue **items;
    struct lcm_pvalue *parent; /* the table or list it belongs to, or NULL: an item belongs to one place, which
                                * refuses a second place and a cycle (a node put into itself or its own child) */
    int height;                /* levels below it (0: no items); only grows */
    char *misuse; /* why lcm_pv_append or _put refused an item (a node of the wrong kind, a NULL item or key, an
                   * item that belongs elsewhere, a cycle, too deep): the error core_params_resolve reports, since
                   * those functions return nothing */
};

/* lcm_pv_num, _list, _table, _copy, _append, _put, _get, _free, _set_path: lcm.h */
/* Removes table[key] (if present) and frees it. */
void core_pv_remove(lcm_pvalue *table, const char *key);
/* lcm_pv_put of a key that table does not hold (not looked for: a table
 * read from Lua, whose keys are unique, is built in linear time). */
void core_pv_put_new(lcm_pvalue *table, const char *key, lcm_pvalue *item);

/* Parameters fixed from outside the model (--fix, lcmgen.h), before the
 * model is generated: a fix without a value takes the number the params
 * tree gives at its path (written "%.17g", which reads back exactly); each
 * fixed path then leaves the tree, since the model holds it; a fix given a
 * value that the tree also gives must agree with it.  An array at the path
 * is refused: only a scalar becomes a constant. */
int core_params_take_fixes(lcm_pvalue *params, ir_option *fixes, int nfixes, lcm_err *err);

/* Fills buf[0..m->params_size-1]; fixed slots come from the model. */
int core_params_resolve(const ir_model *m, const lcm_pvalue *root, double *buf, lcm_err *err);
/* A resolved buffer (lcm_solve_resolved's, filled by the caller) holds no
 * NaN, as core_params_resolve refuses in a tree: LCM_E_PARAMS naming the
 * parameter and the element, instead of a NaN V periods later. */
int core_params_check_buffer(const ir_model *m, const double *buf, lcm_err *err);

/* A params file with every parameter the model needs, to fill in. */
void core_params_template(const ir_model *m, lcm_sb *out);
/* A params file holding the values of a resolved buffer (fixed parameters
 * left out): reading and resolving it gives buf back exactly. */
void core_params_write_lua(const ir_model *m, const double *buf, lcm_sb *out);

#endif
