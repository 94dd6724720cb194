/* eval.c - see eval.h. */
#include "eval.h"

#include <math.h>

#include "arith.h"

static double truth(int b) { return b ? 1.0 : 0.0; }

/* NaN-propagating min and max (jnp.minimum / jnp.maximum semantics). */
static double nan_min(double a, double b) { return isnan(a) || isnan(b) ? NAN : (b < a ? b : a); }
static double nan_max(double a, double b) { return isnan(a) || isnan(b) ? NAN : (b > a ? b : a); }

static double param_elem(const ir_model *m, const ir_node *n, const double *v, const double *params)
{
    const ir_param *p = &m->params[n->ref];
    size_t flat = 0;
    for (int d = 0; d < p->ndims; ++d) {
        double x = v[n->args[d]];
        if (!(x >= 0 && x < p->dims[d]) || x != floor(x)) return NAN;
        flat = flat * (size_t)p->dims[d] + (size_t)x;
    }
    return params[p->offset + flat];
}

void ir_eval(const ir_model *m, const ir_regime *r, const ir_env *env, double *v, size_t count)
{
    lcm_assert(m && r && env && v);
    lcm_assert(count <= r->nnodes);
    for (size_t i = 0; i < count; ++i) {
        const ir_node *n = &r->nodes[i];
        double a = n->nargs > 0 ? v[n->args[0]] : 0, b = n->nargs > 1 ? v[n->args[1]] : 0;
        double x;
        switch (n->op) {
        case OP_CONST: x = n->k; break;
        case OP_STATE: x = env->states[n->ref]; break;
        case OP_ACTION: x = env->actions[n->ref]; break;
        case OP_AGE: x = env->age; break;
        case OP_PERIOD: x = env->period; break;
        case OP_ENEXT: x = env->enext; break;
        case OP_SAVINGS: x = env->savings; break;
        case OP_MARGINAL: x = env->marginal; break;
        case OP_STAGE:
        case OP_STAGE_OK: /* a stage's table entry (ir/eliminate.h): the DAG of a staged kernel is evaluated
                           * only for the nodes that read no state and no action (gen/cost.c), and these read
                           * their stage's scope */
            x = NAN;
            break;
        case OP_PARAM: x = env->params[m->params[n->ref].offset]; break;
        case OP_PIDX: x = param_elem(m, n, v, env->params); break;
        case OP_NEG: x = -a; break;
        case OP_NOT: x = truth(a == 0); break;
        case OP_LOG: x = log(a); break;
        case OP_EXP: x = exp(a); break;
        case OP_SQRT: x = sqrt(a); break;
        case OP_ABS: x = fabs(a); break;
        case OP_FLOOR: x = floor(a); break;
        case OP_CEIL: x = ceil(a); break;
        case OP_LOG1P: x = log1p(a); break;
        case OP_EXPM1: x = expm1(a); break;
        case OP_NCDF: x = 0.5 * erfc(-a / sqrt(2.0)); break;
        case OP_TANH: x = tanh(a); break;
        case OP_ADD: x = a + b; break;
        case OP_SUB: x = a - b; break;
        case OP_MUL: x = a * b; break;
        case OP_DIV: x = a / b; break; /* the kernels' lcm_div (arith.h) is this quotient exactly */
        case OP_POW: x = lcm_pow(a, b); break; /* as the kernels (arith.h) */
        case OP_MOD: x = a - floor(a / b) * b; break;
        case OP_IDIV: x = floor(a / b); break;
        case OP_MIN: x = nan_min(a, b); break;
        case OP_MAX: x = nan_max(a, b); break;
        case OP_LT: x = truth(a < b); break;
        case OP_LE: x = truth(a <= b); break;
        case OP_GT: x = truth(a > b); break;
        case OP_GE: x = truth(a >= b); break;
        case OP_EQ: x = truth(a == b); break;
        case OP_NE: x = truth(a != b); break;
        case OP_AND: x = truth(a != 0 && b != 0); break;
        case OP_OR: x = truth(a != 0 || b != 0); break;
        case OP_WHERE: x = a != 0 ? b : v[n->args[2]]; break;
        default: /* ir_model_check refuses unknown ops */
            lcm_assert(!"an op ir_eval knows");
            x = NAN;
            break;
        }
        v[i] = x;
    }
}
