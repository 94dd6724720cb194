/* Grid points (numpy conventions) and the layout of the grid buffer. */
#include <math.h>

#include "check.h"
#include "grid.h"

int main(void)
{
    double p[8];
    ir_grid lin = {.kind = GRID_LIN, .n = 5, .start = 1, .stop = 3};
    ir_grid_points(&lin, p);
    CHECK(p[0] == 1 && p[1] == 1.5 && p[2] == 2 && p[3] == 2.5 && p[4] == 3);

    ir_grid lg = {.kind = GRID_LOG, .n = 4, .start = 1, .stop = 1000};
    ir_grid_points(&lg, p);
    CHECK(p[0] == 1 && p[3] == 1000); /* ends exactly */
    CHECK_CLOSE(p[1], 10, 1e-14);
    CHECK_CLOSE(p[2], 100, 1e-14);

    double pts[] = {0, 0.5, 2, 7};
    ir_grid irr = {.kind = GRID_IRREG, .n = 4, .points = pts};
    ir_grid_points(&irr, p);
    CHECK(!memcmp(p, pts, sizeof pts));

    /* piecewise: "[0, 2)" with 3 points then "[2, 4]" with 3; the open end
     * stops at the double just below 2, so no point repeats */
    ir_piece lp[] = {{.lo = 0, .hi = 2, .lo_closed = 1, .hi_closed = 0, .n = 3},
                     {.lo = 2, .hi = 4, .lo_closed = 1, .hi_closed = 1, .n = 3}};
    ir_grid pw = {.kind = GRID_PWLIN, .n = 6, .npieces = 2, .pieces = lp};
    ir_grid_points(&pw, p);
    double below2 = nextafter(2.0, 0.0);
    CHECK(p[0] == 0 && p[2] == below2 && p[3] == 2 && p[4] == 3 && p[5] == 4);
    CHECK_CLOSE(p[1], below2 / 2, 1e-15);
    double a, b;
    ir_piece_bounds(&lp[0], &a, &b);
    CHECK(a == 0 && b == below2);
    ir_piece open_lo = {.lo = 1, .hi = 3, .lo_closed = 0, .hi_closed = 1, .n = 2};
    ir_piece_bounds(&open_lo, &a, &b);
    CHECK(a == nextafter(1.0, 2.0) && b == 3);

    /* piecewise log: "[1, 10]" then "(10, 1000]"; each piece ends exactly */
    ir_piece gp[] = {{.lo = 1, .hi = 10, .lo_closed = 1, .hi_closed = 1, .n = 2},
                     {.lo = 10, .hi = 1000, .lo_closed = 0, .hi_closed = 1, .n = 3}};
    ir_grid pwl = {.kind = GRID_PWLOG, .n = 5, .npieces = 2, .pieces = gp};
    ir_grid_points(&pwl, p);
    CHECK(p[0] == 1 && p[1] == 10 && p[2] == nextafter(10.0, 20.0) && p[4] == 1000);
    CHECK_CLOSE(p[3], sqrt(p[2] * 1000), 1e-14);
    for (int i = 1; i < 5; ++i) CHECK(p[i] > p[i - 1]);

    char *labels[] = {"a", "b", "c"};
    ir_grid d = {.kind = GRID_DISCRETE, .n = 3, .labels = labels};
    ir_grid_points(&d, p);
    CHECK(p[0] == 0 && p[1] == 1 && p[2] == 2);

    /* layout: continuous grids of states then actions, regime by regime */
    ir_var s0[] = {{"d", d}, {"w", lin}}, a0[] = {{"c", lg}}, s1[] = {{"x", irr}};
    ir_regime rs[2] = {{.nstates = 2, .states = s0, .nactions = 1, .actions = a0},
                       {.nstates = 1, .states = s1}};
    ir_model m = {.nregimes = 2, .regimes = rs};
    ir_grid_layout L = {0};
    ir_grid_layout_build(&m, &L);
    CHECK(L.total == 5 + 4 + 4);
    CHECK(L.state_off[0][1] == 0 && L.action_off[0][0] == 5 && L.state_off[1][0] == 9);
    double G[13];
    char why[64];
    CHECK(ir_grid_buffer_fill(&m, &L, NULL, 0, G, why, sizeof why) == 0);
    CHECK(G[0] == 1 && G[4] == 3 && G[5] == 1 && G[8] == 1000 && G[9] == 0 && G[12] == 7);
    ir_grid_layout_free(&L);
    CHECK_DONE();
}
