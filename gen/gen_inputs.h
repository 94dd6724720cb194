/* gen_inputs.h - what a generation is given beside the model file: its
 * options and fixed parameters (lcmgen.h generates, lua_host.h traces). */
#ifndef LCM_GEN_INPUTS_H
#define LCM_GEN_INPUTS_H

#include "ir.h"

/* What a model is generated with besides its files: structural options
 * (-D name=value, read by lcm.option) and parameters fixed from outside the
 * model (--fix path=value: a parameter path as in a params file, NAME,
 * REGIME.NAME or REGIME.FUNCTION.NAME, and a number), which join the model's
 * fixed_params and so become constants of the kernels. */
typedef struct lcmgen_inputs {
    const ir_option *defines;
    int ndefines;
    const ir_option *fixes; /* name: the path; value: the number as text */
    int nfixes;
} lcmgen_inputs;

#endif
