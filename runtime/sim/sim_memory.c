/* sim_memory.c - see sim_memory.h: the bill of a simulation. */
#include "sim_memory.h"

#include "panel.h" /* the targets' columns */

static void bill_simulate(lcm_bill *b, const lcm_solver *sv, lcm_index subjects, const lcm_sim_options *o)
{
    const ir_model *m = &sv->model->ir;
    const lcm_backend *be = sv->workers[0]->backend;
    double rb = (double)core_real_bytes(be->precision), n = (double)subjects, T = m->nperiods;
    const char *spec = o ? o->targets : NULL;
    int slots; /* the hidden choice values of EGM regimes' choice probabilities (panel.h), counted as actions */
    double ns = sv->vars.nstates, targets = sim_targets_shape(m, spec, &slots);
    double nchoice = slots, na = sv->vars.nactions + nchoice;
    double cells = n * T;
    /* simulate.c: the panel's columns, one cell per (subject, period),
     * compacted in place; then the targets' columns */
    double panel = cells * (8 + 4 + 4 + 8 + 8 * ns + 8 * na);
    double extra = cells * 8 * targets;
    lcm_sb what;
    base_sb_init(&what);
    solve_put_count(&what, n);
    base_sb_printf(&what, " subjects x %d periods, up to ", m->nperiods);
    solve_put_count(&what, cells);
    double nact = sv->vars.nactions;
    base_sb_printf(&what, " rows of %.0f state%s and %.0f action%s%s%s", ns, ns == 1 ? "" : "s", nact,
                  nact == 1 ? "" : "s", nchoice > 0 ? ", the choice values" : "", targets > 0 ? " and the targets" : "");
    solve_bill_add(b, LCM_BILL_HOST, panel + extra, "the panel (%s)", what.s);
    base_sb_free(&what);
    /* states, regime, periods lived, owner, mine */
    solve_bill_add(b, LCM_BILL_HOST, n * (8 * ns + 4 + 4 + 4 + 1), "the state of %.0f subjects", n);
    double K = o && o->subject_batch_size > 0 && o->subject_batch_size < subjects ? (double)o->subject_batch_size : n;
    const char *bound = "; --subject-batch-size bounds it";
    /* simulate.c (buffer_list): a batch's next states, V, actions, next
     * regimes and regimes in backend memory; its states (but a float64 host
     * backend's are the subjects' own), starts and periods lived (a
     * device's); its panel cells (but a float64 host backend records into
     * the panel); a device's pinned staging, the batch's way in and home */
    int dev = !be->host_memory, direct = !dev && rb == 8;
    double batch = K * ((direct ? 1 : 2) * ns * rb + rb + na * rb + 4 + 4 + (dev ? 8 : 0));
    double own_cells = direct ? 0 : K * T * (4 + rb * (1 + ns + na));
    solve_bill_add(b, dev ? LCM_BILL_DEVICE : LCM_BILL_HOST, batch + own_cells, "a batch of %.0f subjects%s%s", K,
        own_cells > 0 ? " and its panel cells" : "", bound);
    if (dev) {
        solve_bill_add(b, LCM_BILL_HOST, 2.0 * (double)LCM_SIM_STAGE_BYTES * sv->nworkers, "the pinned staging of a batch's way in and "
            "home (each device's)");
        double vnext = 0;
        for (int r = 0; r < m->nregimes; ++r)
            vnext += (double)ir_state_space_size(&m->regimes[r]) * rb * (ir_marginal_state(&m->regimes[r]) >= 0 ? 2 : 1);
        solve_bill_add(b, LCM_BILL_DEVICE, vnext, "V (and marginal values) of the next period");
    }
    for (int r = 0; r < m->nregimes; ++r) { /* simulate.c: the tables of a period: EGM's, the expected V */
        if (ir_is_egm(&m->regimes[r]))
            solve_bill_add(b, be->host_memory ? LCM_BILL_HOST : LCM_BILL_DEVICE, (double)solve_worker_table_entries(sv->workers[0], r) * (rb + 1),
                "the endogenous grid of regime '%s'", m->regimes[r].name);
        solve_bill_add(b, be->host_memory ? LCM_BILL_HOST : LCM_BILL_DEVICE, (double)solve_worker_ev_entries(sv->workers[0], r, subjects) * rb,
            "the expected next V of regime '%s'", m->regimes[r].name);
    }
}

int sim_memory_check_simulate(const lcm_solver *sv, lcm_index subjects, const lcm_sim_options *o, size_t panel_held,
                              lcm_err *err)
{
    lcm_bill b = {0};
    bill_simulate(&b, sv, subjects, o);
    char doing[300];
    snprintf(doing, sizeof doing, "simulating %lld subjects of model '%s'", (long long)subjects, sv->model->ir.name);
    int rc = 0;
    for (int w = 0; w < sv->nworkers && !rc; ++w) { /* each worker's device; the host once */
        double host = (double)panel_held, device = 0;
        for (int k = 0; k < sv->nworkers; ++k) { /* every worker's kept host memory, this one's device memory */
            double h, d;
            sim_sim_buffers_held(sv->workers[k], &h, &d);
            host += h;
            if (k == w) device = d;
        }
        b.held[LCM_BILL_HOST] = host, b.held[LCM_BILL_DEVICE] = device;
        rc = solve_bill_settle(&b, doing, sv->workers[w]->backend,
                    "Fewer subjects per run, fewer periods or fewer --targets need less (LCM_MEMORY_LIMIT sets the "
                    "memory lcm may use, docs/tuning.md)",
                    "A smaller --subject-batch-size needs less", err);
    }
    solve_bill_free(&b);
    return rc;
}
