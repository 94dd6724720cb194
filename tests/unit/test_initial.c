/* Initial conditions: CSV and HDF5 read into regimes, periods and state
 * slots; every rejected input with its message and code. */
#define _GNU_SOURCE
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "initial.h"
#include "testlib.h"

/* ---- helpers ---------------------------------------------------------------- */
static const ir_model *load(const char *lua, const char *const *defines, lcm_model **keep)
{
    lcm_err err = {0};
    *keep = NULL;
    CHECK_OK(test_generate(lua, defines, keep, &err));
    if (!*keep) {
        fprintf(stderr, "cannot generate %s\n", lua);
        exit(1);
    }
    return core_model_ir(*keep);
}

static int slot_of(const ir_model *m, const char *state)
{
    ir_vars v;
    ir_vars_build(m, &v);
    int s = ir_vars_state(&v, state);
    ir_vars_free(&v);
    CHECK_MSG(s >= 0, "no state '%s'", state);
    return s;
}

static int regime_of(const ir_model *m, const char *name)
{
    int r = ir_find_regime(m, name);
    CHECK_MSG(r >= 0, "no regime '%s'", name);
    return r;
}

static lcm_initial *parse(const ir_model *m, const char *csv)
{
    lcm_err err = {0};
    lcm_initial *ic = NULL;
    int rc = sim_initial_parse_csv(m, "initial.csv", csv, &ic, &err);
    CHECK_MSG(rc == 0 && ic, "[%s] failed (%d): %s", csv, rc, err.msg);
    return ic;
}

static void fails(const ir_model *m, const char *csv, int code, const char *expect)
{
    lcm_err err = {0};
    lcm_initial *ic = (lcm_initial *)1;
    int rc = sim_initial_parse_csv(m, "initial.csv", csv, &ic, &err);
    CHECK_MSG(rc == code && err.code == code && strstr(err.msg, expect) && !ic,
              "[%s] expected %d '%s', got %d '%s'", csv, code, expect, rc, err.msg);
}

static void read_fails(const ir_model *m, const char *path, int code, const char *expect)
{
    lcm_err err = {0};
    lcm_initial *ic = (lcm_initial *)1;
    int rc = sim_initial_read_ir(m, path, &ic, &err);
    CHECK_MSG(rc == code && err.code == code && strstr(err.msg, expect) && !ic,
              "[%s] expected %d '%s', got %d '%s'", path, code, expect, rc, err.msg);
}

/* Subject i's value of a state, and whether the file gave it. */
static double x_of(const lcm_initial *ic, lcm_index i, int slot) { return ic->x[i * ic->nslots + slot]; }
static int given_of(const lcm_initial *ic, lcm_index i, int slot) { return ic->given[i * ic->nslots + slot]; }

static int same_initial(const lcm_initial *a, const lcm_initial *b)
{
    if (!a || !b || a->n != b->n || a->nslots != b->nslots) return 0;
    for (lcm_index i = 0; i < a->n; ++i) {
        if (a->regime[i] != b->regime[i] || a->period[i] != b->period[i]) return 0;
        for (int s = 0; s < a->nslots; ++s)
            if (given_of(a, i, s) != given_of(b, i, s) || !close_rel(x_of(a, i, s), x_of(b, i, s), 0)) return 0;
    }
    return 1;
}

static void write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(text, 1, len, f) == len);
    if (f) fclose(f);
}

/* 1-D datasets as other programs write them */
static void h5_numbers(hid_t f, const char *name, hid_t file_type, hid_t mem_type, const void *v, hsize_t n)
{
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(f, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d >= 0 && H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Dclose(d), H5Sclose(space);
}

/* width 0: variable-length strings (h5py's default); else fixed-length, NUL-padded */
static void h5_strings(hid_t f, const char *name, const char *const *v, hsize_t n, size_t width)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    char *fixed = NULL;
    if (width) {
        H5Tset_size(type, width);
        H5Tset_strpad(type, H5T_STR_NULLPAD);
        fixed = calloc(n, width);
        for (hsize_t i = 0; i < n; ++i) strncpy(fixed + i * width, v[i], width);
    } else {
        H5Tset_size(type, H5T_VARIABLE);
    }
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(f, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d >= 0 && H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, fixed ? (const void *)fixed : v) >= 0);
    H5Dclose(d), H5Sclose(space), H5Tclose(type);
    free(fixed);
}

/* ---- iskhakov_2017: regimes by name and id, ages ---------------------------- */
static void test_iskhakov(void)
{
    lcm_model *keep;
    const ir_model *m = load("models/iskhakov_2017.lua", NULL, &keep);
    int w = slot_of(m, "wealth");
    lcm_initial *ic = parse(m, "regime,age,wealth\n"
                               "working_life,40,100\n"
                               "1,60,50.5\n"
                               "dead,90,\n"
                               "0,40.00000000001,1\n");
    if (ic) {
        CHECK(ic->n == 4 && ic->nslots == 1);
        CHECK(ic->regime[0] == regime_of(m, "working_life") && ic->period[0] == 0);
        CHECK(ic->regime[1] == regime_of(m, "retirement") && ic->period[1] == 2);
        CHECK(ic->regime[2] == regime_of(m, "dead") && ic->period[2] == 5);
        CHECK(ic->regime[3] == 0 && ic->period[3] == 0);
        CHECK(x_of(ic, 0, w) == 100 && given_of(ic, 0, w));
        CHECK(x_of(ic, 1, w) == 50.5 && given_of(ic, 1, w));
        CHECK(isnan(x_of(ic, 2, w)) && !given_of(ic, 2, w)); /* dead has no wealth */
        CHECK(x_of(ic, 3, w) == 1);
        /* off the grid is fine */
        lcm_initial_free(ic);
    }
    ic = parse(m, "regime,age,wealth\nretirement,50,1e6\n");
    CHECK(ic && x_of(ic, 0, w) == 1e6);
    lcm_initial_free(ic);

    fails(m, "regime,age,wealth\nretirement,90,10\n", LCM_E_INPUT,
          "initial.csv: line 2: column 'regime': regime 'retirement' is not active at age 90 (period 5)");
    fails(m, "regime,age,wealth\nworking_life,45,10\n", LCM_E_INPUT,
          "initial.csv: line 2: column 'age': age 45 is not an age of the model (40, 50, 60, 70, 80, 90)");
    fails(m, "regime,age,wealth\nworking_life,40.001,10\n", LCM_E_INPUT, "age 40.001 is not an age");
    fails(m, "regime,age,wealth\nworking_life,forty,10\n", LCM_E_INPUT, "column 'age': 'forty' is not a number");
    fails(m, "regime,age,wealth\nworking,40,10\n", LCM_E_INPUT,
          "column 'regime': 'working' is not a regime (working_life, retirement, dead; or an id 0..2)");
    fails(m, "regime,age,wealth\n3,40,10\n", LCM_E_INPUT, "'3' is not a regime");
    fails(m, "regime,age,wealth\n-1,40,10\n", LCM_E_INPUT, "'-1' is not a regime");
    fails(m, "regime,age,wealth\n0.5,40,10\n", LCM_E_INPUT, "'0.5' is not a regime");
    fails(m, "regime,age,wealth\n,40,10\n", LCM_E_INPUT,
          "line 2: column 'regime' is empty; every subject needs one");
    fails(m, "regime,age,wealth\nworking_life, ,10\n", LCM_E_INPUT,
          "line 2: column 'age' is empty; every subject needs one");
    lcm_model_free(keep);

    /* many ages: the first five, "...", the last */
    const char *const long_life[] = {"n_periods=20", NULL};
    m = load("models/iskhakov_2017.lua", long_life, &keep);
    fails(m, "regime,age,wealth\nworking_life,41,10\n", LCM_E_INPUT,
          "age 41 is not an age of the model (40, 50, 60, 70, 80, ..., 230)");
    lcm_model_free(keep);
}

/* ---- mortality: labels and codes, ignored cells, CSV syntax, errors -------- */
static void test_mortality_values(const ir_model *m)
{
    int health = slot_of(m, "health"), patience = slot_of(m, "patience"), wealth = slot_of(m, "wealth");
    int working = regime_of(m, "working"), retired = regime_of(m, "retired"), dead = regime_of(m, "dead");
    /* health: bad = 0, good = 1; patience: patient = 0, impatient = 1 */
    lcm_initial *ic = parse(m, "regime,age,health,patience,wealth\n"
                               "working,50,good,patient,10\n"
                               "1,65,0,1,20.5\n"
                               "dead,80,,,\n"
                               "2,55,sick,x,abc\n"); /* cells of states dead lacks: not even read */
    if (!ic) return;
    CHECK(ic->n == 4 && ic->nslots == 3);
    CHECK(ic->regime[0] == working && ic->period[0] == 0);
    CHECK(x_of(ic, 0, health) == 1 && x_of(ic, 0, patience) == 0 && x_of(ic, 0, wealth) == 10);
    CHECK(given_of(ic, 0, health) && given_of(ic, 0, patience) && given_of(ic, 0, wealth));
    CHECK(ic->regime[1] == retired && ic->period[1] == 3);
    CHECK(x_of(ic, 1, health) == 0 && x_of(ic, 1, patience) == 1 && x_of(ic, 1, wealth) == 20.5);
    CHECK(ic->regime[2] == dead && ic->period[2] == 6);
    CHECK(ic->regime[3] == dead && ic->period[3] == 1);
    for (int i = 2; i < 4; ++i)
        for (int s = 0; s < 3; ++s) CHECK(isnan(x_of(ic, i, s)) && !given_of(ic, i, s));
    lcm_initial_free(ic);
}

static void test_csv_syntax(const ir_model *m)
{
    int health = slot_of(m, "health"), patience = slot_of(m, "patience"), wealth = slot_of(m, "wealth");
    /* CRLF, quotes, spaces around fields, blank lines (also before the header), a BOM */
    lcm_initial *ic = parse(m, "\xEF\xBB\xBF\r\n"
                               "regime,\"age\", health ,patience,\"wealth\"\r\n"
                               "\"working\", 50 ,\"good\",  patient ,\"1e1\"\r\n"
                               "\r\n"
                               "  \t \r\n"
                               "retired,70,\"bad\" ,impatient,2.5"); /* no line end at the end */
    if (ic) {
        CHECK(ic->n == 2);
        CHECK(ic->regime[0] == 0 && ic->period[0] == 0 && ic->regime[1] == 1 && ic->period[1] == 4);
        CHECK(x_of(ic, 0, health) == 1 && x_of(ic, 0, patience) == 0 && x_of(ic, 0, wealth) == 10);
        CHECK(x_of(ic, 1, health) == 0 && x_of(ic, 1, patience) == 1 && x_of(ic, 1, wealth) == 2.5);
        lcm_initial_free(ic);
    }
    const char *H = "regime,age,health,patience,wealth\n";
    char csv[512];
    /* "" in a quoted field is a quote; a quoted comma is not a separator */
    snprintf(csv, sizeof csv, "%sworking,50,\"si\"\"ck\",patient,10\n", H);
    fails(m, csv, LCM_E_INPUT, "column 'health': 'si\"ck' is not a category");
    snprintf(csv, sizeof csv, "%sworking,50,\"a,b\",patient,10\n", H);
    fails(m, csv, LCM_E_INPUT, "column 'health': 'a,b' is not a category");
    /* lines are counted through blank lines and line breaks inside quotes */
    snprintf(csv, sizeof csv, "%s\n  \ndead,50,\"two\r\nlines\",,\nworking,50,sick,patient,10\n", H);
    fails(m, csv, LCM_E_INPUT, "initial.csv: line 6: column 'health'");
    snprintf(csv, sizeof csv, "%sworking,\"50,good,patient,10\n", H);
    fails(m, csv, LCM_E_INPUT, "initial.csv: line 2: a quoted field is not closed");
    snprintf(csv, sizeof csv, "%s\"working\"x,50,good,patient,10\n", H);
    fails(m, csv, LCM_E_INPUT, "initial.csv: line 2: field 1: text after the closing quote");
    snprintf(csv, sizeof csv, "%sworking,50,good\n", H);
    fails(m, csv, LCM_E_INPUT, "initial.csv: line 2: 3 fields, but the header (line 1) has 5");
    snprintf(csv, sizeof csv, "%sworking,50,good,patient,10,\n", H);
    fails(m, csv, LCM_E_INPUT, "line 2: 6 fields");
    /* the first problem in the file is the one reported */
    snprintf(csv, sizeof csv, "%sworking,50,sick,patient,10\nworking,50\n", H);
    fails(m, csv, LCM_E_INPUT, "line 2: column 'health': 'sick'");
    fails(m, "", LCM_E_INPUT, "initial.csv: no subjects");
    fails(m, "\r\n  \n", LCM_E_INPUT, "initial.csv: no subjects");
    fails(m, H, LCM_E_INPUT, "initial.csv: no subjects");
}

/* Each line end is "\n", "\r\n" or a bare "\r" (old Mac OS), also mixed in
 * one file: the same subjects, and the same line numbers in messages. */
static char *with_line_ends(const char *lf_text, const char *eol)
{
    lcm_sb b;
    base_sb_init(&b);
    for (const char *p = lf_text; *p; ++p) {
        if (*p == '\n') base_sb_puts(&b, eol);
        else base_sb_putc(&b, *p);
    }
    return base_sb_take(&b);
}

static void test_line_ends(const ir_model *m)
{
    const char *lf = "regime,age,health,patience,wealth\n"
                     "working,50,good,patient,10\n"
                     "\n"
                     "  \t \n"
                     "retired,70,\"bad\",impatient,2.5\n"
                     "dead,80,,,\n";
    lcm_initial *want = parse(m, lf);
    const char *eols[] = {"\r\n", "\r"};
    for (int e = 0; e < 2; ++e) {
        char *text = with_line_ends(lf, eols[e]);
        lcm_initial *got = parse(m, text);
        CHECK_MSG(same_initial(want, got), "line ends %s", e ? "CR" : "CRLF");
        lcm_initial_free(got);
        free(text);
    }
    /* mixed, and the last line without an end */
    lcm_initial *mixed = parse(m, "regime,age,health,patience,wealth\r"
                                  "working,50,good,patient,10\r\n"
                                  "\r\r\n  \t \n"
                                  "retired,70,\"bad\",impatient,2.5\n"
                                  "dead,80,,,");
    CHECK(same_initial(want, mixed));
    lcm_initial_free(mixed);
    lcm_initial_free(want);
    /* the file: CR only, where a reader of "\n" sees one line and a column 'wealthworking' */
    fails(m, "regime,age,health,patience,wealth\rworking,50,sick,patient,10\r", LCM_E_INPUT,
          "initial.csv: line 2: column 'health': 'sick' is not a category");
    /* lines are counted through CR-only blank lines and a CR inside quotes */
    fails(m, "regime,age,health,patience,wealth\r\r  \rdead,50,\"two\rlines\",,\rworking,50,sick,patient,10\r",
          LCM_E_INPUT, "initial.csv: line 6: column 'health'");
    fails(m, "regime,age,health,patience,wealth\r\nworking,50,good\r\n", LCM_E_INPUT,
          "initial.csv: line 2: 3 fields, but the header (line 1) has 5");
    fails(m, "regime,age,health,patience,wealth\rworking,50,good\r", LCM_E_INPUT,
          "initial.csv: line 2: 3 fields, but the header (line 1) has 5");
    fails(m, "\r\r  \r", LCM_E_INPUT, "initial.csv: no subjects");
}

static void test_mortality_errors(const ir_model *m)
{
    fails(m, "regime,age,helth,patience,wealth\nworking,50,good,patient,10\n", LCM_E_INPUT,
          "initial.csv: line 1: column 'helth' is not a state of the model (did you mean 'health'?)");
    fails(m, "regime,Age,health,patience,wealth\n", LCM_E_INPUT, "column 'Age' is not a state of the model "
          "(did you mean 'age'?)");
    fails(m, "id,regime,age,health,patience,wealth\n", LCM_E_INPUT,
          "line 1: column 'id' is not a state of the model (the columns are 'regime', 'age' and the states: health, "
          "patience, wealth)");
    fails(m, "regime,age,wealth,health,wealth\n", LCM_E_INPUT,
          "line 1: column 'wealth' appears twice (columns 3 and 5)");
    fails(m, "regime,age,regime\n", LCM_E_INPUT, "column 'regime' appears twice (columns 1 and 3)");
    fails(m, "age,wealth\n50,1\n", LCM_E_INPUT, "line 1: column 'regime' is missing (every subject needs");
    fails(m, "regime,wealth\nworking,1\n", LCM_E_INPUT, "line 1: column 'age' is missing");
    fails(m, "regime,age,health,patience\nworking,50,good,patient\n", LCM_E_INPUT,
          "initial.csv: line 2: column 'wealth' is missing; regime 'working' needs it");
    /* dead needs nothing: a file without states is fine for it */
    lcm_initial *ic = parse(m, "regime,age\ndead,60\n");
    CHECK(ic && ic->n == 1 && ic->period[0] == 2);
    lcm_initial_free(ic);
    fails(m, "regime,age,health,patience,wealth\nworking,50,good,patient,10\nretired,60,,patient,10\n",
          LCM_E_INPUT, "initial.csv: line 3: column 'health' is empty; regime 'retired' needs it");
    const char *H = "regime,age,health,patience,wealth\n";
    char csv[512];
    snprintf(csv, sizeof csv, "%sworking,50,sick,patient,10\n", H);
    fails(m, csv, LCM_E_INPUT,
          "initial.csv: line 2: column 'health': 'sick' is not a category of 'health' in regime 'working' (bad, good)");
    snprintf(csv, sizeof csv, "%sworking,50,Good,patient,10\n", H);
    fails(m, csv, LCM_E_INPUT, "'Good' is not a category"); /* labels are case-sensitive */
    snprintf(csv, sizeof csv, "%sworking,50,1.5,patient,10\n", H);
    fails(m, csv, LCM_E_INPUT, "column 'health': '1.5' is not a code of 'health' in regime 'working' (0..1 for bad, good)");
    snprintf(csv, sizeof csv, "%sworking,50,good,2,10\n", H);
    fails(m, csv, LCM_E_INPUT, "column 'patience': '2' is not a code of 'patience'");
    snprintf(csv, sizeof csv, "%sworking,50,-1,patient,10\n", H);
    fails(m, csv, LCM_E_INPUT, "'-1' is not a code of 'health'");
    snprintf(csv, sizeof csv, "%sworking,50,good,patient,inf\n", H);
    fails(m, csv, LCM_E_INPUT, "line 2: column 'wealth': 'inf' is not a finite number");
    snprintf(csv, sizeof csv, "%sworking,50,good,patient,nan\n", H);
    fails(m, csv, LCM_E_INPUT, "column 'wealth': 'nan' is not a finite number");
    snprintf(csv, sizeof csv, "%sworking,50,good,patient,1e999\n", H);
    fails(m, csv, LCM_E_INPUT, "column 'wealth': '1e999' is not a finite number");
    snprintf(csv, sizeof csv, "%sworking,50,good,patient,10abc\n", H);
    fails(m, csv, LCM_E_INPUT, "column 'wealth': '10abc' is not a number");
    snprintf(csv, sizeof csv, "%sworking,80,good,patient,10\n", H);
    fails(m, csv, LCM_E_INPUT, "regime 'working' is not active at age 80 (period 6)");
    snprintf(csv, sizeof csv, "%sretired,57,good,patient,10\n", H);
    fails(m, csv, LCM_E_INPUT, "age 57 is not an age of the model (50, 55, 60, 65, 70, 75, 80)");
}

/* ---- precautionary_savings: a shock process may be left out ----------------- */
static void test_process(void)
{
    lcm_model *keep;
    const ir_model *m = load("models/precautionary_savings.lua", NULL, &keep);
    int income = slot_of(m, "income"), wealth = slot_of(m, "wealth");
    int alive = regime_of(m, "alive"), dead = regime_of(m, "dead");
    /* no income column: drawn by the simulation */
    lcm_initial *ic = parse(m, "regime,age,wealth\nalive,20,5\nalive,40,1.5\n");
    if (ic) {
        CHECK(ic->n == 2 && ic->regime[0] == alive && ic->period[0] == 0 && ic->period[1] == 2);
        CHECK(isnan(x_of(ic, 0, income)) && !given_of(ic, 0, income));
        CHECK(isnan(x_of(ic, 1, income)) && !given_of(ic, 1, income));
        CHECK(x_of(ic, 0, wealth) == 5 && given_of(ic, 0, wealth) && x_of(ic, 1, wealth) == 1.5);
        lcm_initial_free(ic);
    }
    /* given for one subject, left empty for another; any finite value (off the grid too) */
    ic = parse(m, "regime,age,income,wealth\nalive,20,0.3,5\nalive,30,,6\ndead,60,,\nalive,50,-7,1\n");
    if (ic) {
        CHECK(ic->n == 4);
        CHECK(x_of(ic, 0, income) == 0.3 && given_of(ic, 0, income));
        CHECK(isnan(x_of(ic, 1, income)) && !given_of(ic, 1, income) && x_of(ic, 1, wealth) == 6);
        CHECK(ic->regime[2] == dead && ic->period[2] == 4 && !given_of(ic, 2, wealth));
        CHECK(x_of(ic, 3, income) == -7 && ic->period[3] == 3);
        lcm_initial_free(ic);
    }
    /* given, it is checked */
    fails(m, "regime,age,income,wealth\nalive,20,high,5\n", LCM_E_INPUT, "column 'income': 'high' is not a number");
    fails(m, "regime,age,income,wealth\nalive,20,-inf,5\n", LCM_E_INPUT, "'-inf' is not a finite number");
    fails(m, "regime,age,income\nalive,20,0.1\n", LCM_E_INPUT, "column 'wealth' is missing; regime 'alive' needs it");
    fails(m, "regime,age,incme,wealth\n", LCM_E_INPUT, "column 'incme' is not a state of the model (did you mean "
          "'income'?)");
    fails(m, "regime,age,wealth\ndead,50,\n", LCM_E_INPUT, "regime 'dead' is not active at age 50 (period 3)");
    lcm_model_free(keep);
}

/* ---- files: CSV on disk, HDF5 equal to the same CSV, unreadable files ------- */
static void test_files(const ir_model *m)
{
    lcm_err err = {0};
    char *dir = test_tmpdir("initial");
    char *h5 = base_path_join(dir, "initial.h5"), *csv_path = test_path("tests/initial/mortality.csv");
    char *bad = base_path_join(dir, "bad.h5"), *binary = base_path_join(dir, "binary.csv");

    /* the fixture's subjects, as one dataset per column: labels as fixed- and
     * variable-length strings, codes and values as numbers */
    const char *regimes[] = {"working", "retired", "dead", "working"};
    const int ages[] = {50, 65, 80, 55};
    const char *health[] = {"good", "bad", "", "bad"};
    const double patience[] = {0, 1, NAN, 0};
    const double wealth[] = {10, 20.5, NAN, 3};
    hid_t f = H5Fcreate(h5, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    h5_strings(f, "regime", regimes, 4, 0);
    h5_numbers(f, "age", H5T_STD_I32LE, H5T_NATIVE_INT, ages, 4);
    h5_strings(f, "health", health, 4, 8);
    h5_numbers(f, "patience", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, patience, 4);
    h5_numbers(f, "wealth", H5T_IEEE_F32LE, H5T_NATIVE_DOUBLE, wealth, 4);
    H5Fclose(f);

    lcm_initial *from_csv = NULL, *from_h5 = NULL;
    CHECK_OK(sim_initial_read_ir(m, csv_path, &from_csv, &err));
    CHECK_OK(sim_initial_read_ir(m, h5, &from_h5, &err));
    CHECK(from_csv && from_csv->n == 4 && from_csv->regime[1] == 1 && from_csv->period[3] == 1);
    CHECK(from_csv && x_of(from_csv, 3, slot_of(m, "patience")) == 0 && x_of(from_csv, 1, slot_of(m, "wealth")) == 20.5);
    CHECK(same_initial(from_csv, from_h5));
    lcm_initial_free(from_csv), lcm_initial_free(from_h5);

    /* the same errors, pointing at datasets and subjects */
    const char *sick[] = {"good", "sick", "", "bad"};
    const double regime_ids[] = {0, 1, 2, 0}, short_wealth[] = {1, 2, 3}, no_wealth[] = {10, NAN, NAN, 3};
    f = H5Fcreate(bad, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    h5_numbers(f, "regime", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, regime_ids, 4);
    h5_numbers(f, "age", H5T_STD_I32LE, H5T_NATIVE_INT, ages, 4);
    h5_strings(f, "health", sick, 4, 0);
    h5_numbers(f, "patience", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, patience, 4);
    h5_numbers(f, "wealth", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, wealth, 4);
    H5Fclose(f);
    read_fails(m, bad, LCM_E_INPUT,
               "bad.h5: dataset 'health': subject 1: 'sick' is not a category of 'health' in regime 'retired'");

    f = H5Fcreate(bad, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    h5_numbers(f, "regime", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, regime_ids, 4);
    h5_numbers(f, "age", H5T_STD_I32LE, H5T_NATIVE_INT, ages, 4);
    h5_strings(f, "health", health, 4, 0);
    h5_numbers(f, "patience", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, patience, 4);
    h5_numbers(f, "wealth", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, no_wealth, 4);
    H5Fclose(f);
    read_fails(m, bad, LCM_E_INPUT,
               "bad.h5: dataset 'wealth': subject 1: no value (NaN or an empty string); regime 'retired' needs it");

    f = H5Fcreate(bad, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    h5_numbers(f, "regime", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, regime_ids, 4);
    h5_numbers(f, "age", H5T_STD_I32LE, H5T_NATIVE_INT, ages, 4);
    h5_strings(f, "health", health, 4, 0);
    h5_numbers(f, "patience", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, patience, 4);
    H5Fclose(f);
    read_fails(m, bad, LCM_E_INPUT, "bad.h5: dataset 'wealth' is missing; subject 0 is in regime 'working', "
               "which needs it");

    f = H5Fcreate(bad, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    h5_numbers(f, "regime", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, regime_ids, 4);
    h5_numbers(f, "age", H5T_STD_I32LE, H5T_NATIVE_INT, ages, 4);
    h5_numbers(f, "wealth", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, short_wealth, 3);
    H5Fclose(f);
    /* datasets come in name order: age, regime, wealth */
    read_fails(m, bad, LCM_E_INPUT, "bad.h5: dataset 'wealth' has 3 values but dataset 'age' has 4");

    f = H5Fcreate(bad, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    h5_numbers(f, "regime", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, regime_ids, 4);
    h5_numbers(f, "age", H5T_STD_I32LE, H5T_NATIVE_INT, ages, 4);
    h5_numbers(f, "welth", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, wealth, 4);
    H5Fclose(f);
    read_fails(m, bad, LCM_E_INPUT, "bad.h5: dataset 'welth' is not a state of the model (did you mean 'wealth'?)");

    f = H5Fcreate(bad, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    h5_numbers(f, "regime", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, regime_ids, 0);
    h5_numbers(f, "age", H5T_STD_I32LE, H5T_NATIVE_INT, ages, 0);
    H5Fclose(f);
    read_fails(m, bad, LCM_E_INPUT, "bad.h5: no subjects");

    f = H5Fcreate(bad, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t table[2] = {2, 2};
    hid_t space = H5Screate_simple(2, table, NULL);
    H5Dclose(H5Dcreate2(f, "age", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Sclose(space), H5Fclose(f);
    read_fails(m, bad, LCM_E_INPUT, "bad.h5: dataset 'age' has 2 dimensions; each column is a 1-D dataset");

    /* data kept elsewhere is not read: an external link to the columns of a
     * good file, a column whose values are in another file (external
     * storage), a column declaring more values than memory holds */
    char *outside = base_path_join(dir, "outside.bin");
    write_text(outside, "0123456789abcdef0123456789abcdef", 32);
    f = H5Fcreate(bad, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    h5_numbers(f, "regime", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, regime_ids, 4);
    h5_numbers(f, "age", H5T_STD_I32LE, H5T_NATIVE_INT, ages, 4);
    CHECK(H5Lcreate_external(h5, "wealth", f, "wealth", H5P_DEFAULT, H5P_DEFAULT) >= 0);
    H5Fclose(f);
    read_fails(m, bad, LCM_E_INPUT, "bad.h5: 'wealth' at the root is a link to another file");

    hsize_t four = 4, huge = (hsize_t)1 << 40, chunk = 1024;
    f = H5Fcreate(bad, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    h5_numbers(f, "regime", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, regime_ids, 4);
    h5_numbers(f, "age", H5T_STD_I32LE, H5T_NATIVE_INT, ages, 4);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_external(dcpl, outside, 0, 32) >= 0);
    hid_t one = H5Screate_simple(1, &four, NULL);
    H5Dclose(H5Dcreate2(f, "wealth", H5T_IEEE_F64LE, one, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    H5Sclose(one), H5Pclose(dcpl), H5Fclose(f);
    read_fails(m, bad, LCM_E_INPUT, "bad.h5: dataset 'wealth' keeps its values outside the file");

    f = H5Fcreate(bad, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    h5_numbers(f, "regime", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, regime_ids, 4);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_chunk(dcpl, 1, &chunk) >= 0);
    one = H5Screate_simple(1, &huge, NULL);
    H5Dclose(H5Dcreate2(f, "age", H5T_IEEE_F64LE, one, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    H5Sclose(one), H5Pclose(dcpl), H5Fclose(f);
    read_fails(m, bad, LCM_E_MEMORY, "bad.h5: dataset 'age' declares 1099511627776 values (8388608.0 MiB), more "
               "than this process may use");
    unlink(outside);
    free(outside);

    /* files that cannot be read */
    read_fails(m, "/nonexistent/initial.csv", LCM_E_IO, "cannot open '/nonexistent/initial.csv'");
    read_fails(m, "/nonexistent/initial.h5", LCM_E_IO, "cannot open '/nonexistent/initial.h5'");
    read_fails(m, dir, LCM_E_IO, "cannot read"); /* a directory */
    char *renamed = base_path_join(dir, "text.hdf5");
    write_text(renamed, "regime,age\n", 11);
    read_fails(m, renamed, LCM_E_INPUT, "text.hdf5' is not an HDF5 file");
    write_text(binary, "regime,age\n\0\1\2", 14);
    read_fails(m, binary, LCM_E_INPUT, "binary.csv: not a CSV file");

    unlink(h5), unlink(bad), unlink(binary), unlink(renamed);
    rmdir(dir);
    free(h5), free(bad), free(binary), free(renamed), free(csv_path), free(dir);
}

int main(void)
{
    test_iskhakov();
    lcm_model *keep;
    const ir_model *m = load("models/mortality.lua", NULL, &keep);
    test_mortality_values(m);
    test_csv_syntax(m);
    test_line_ends(m);
    test_mortality_errors(m);
    test_files(m);
    lcm_model_free(keep);
    test_process();
    CHECK_DONE();
}
