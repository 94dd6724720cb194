/* backend_cpu.c - generated C compiled by the host compiler into a shared
 * object, cached on disk, loaded with dlopen, run with OpenMP threads. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "compile_log.h"
#include "files.h"
#include "lcm_internal.h"
#include "log.h"
#include "message.h" /* base_escape_text */
#include "proc.h"
#include "sha256.h"
#include "tempfile.h"

typedef void (*kernel_fn)(const lcm_kernel_args *, lcm_index, lcm_index);
typedef void (*sim_fn)(const lcm_kernel_args *, const lcm_sim_args *, lcm_index, lcm_index);

typedef struct cpu_backend {
    lcm_backend base;
    void *dl;
    int memfd;
    int nkernels;
    kernel_fn *kernels;
    sim_fn *sims;      /* the kernels' simulation entries */
    kernel_fn *tables; /* [kernel * LCM_TABLE_PASSES + pass]: their tables' passes, or NULL (ir/precompute.h) */
    const char **names; /* the kernels' symbols (the model outlives the backend) */
    int threads;
} cpu_backend;

/* The C compiler: LCM_CC, else CC, else cc; *from names where it came from
 * (the variable, or "" for the default). */
static const char *compiler(const char **from)
{
    static const char *const vars[] = {"LCM_CC", "CC"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; ++i) {
        const char *cc = getenv(vars[i]);
        if (cc && *cc) return *from = vars[i], cc;
    }
    return *from = "", "cc";
}


/* -fno-math-errno: no kernel reads errno, so sqrt (a normal draw's) is one
 * instruction without a branch to the library for errno; same results.
 * -ffp-contract=off: no fused multiply-adds, the interpreter's results bit
 * for bit (gcc's default under -std=c11, not clang's). */
static const char *const CFLAGS[] = {"-O3", "-march=native", "-fPIC", "-shared", "-std=c11", "-ffp-contract=off", "-fopenmp",
                                     "-fno-trapping-math", "-fno-math-errno", "-Werror=implicit-function-declaration",
                                     NULL};

/* The compiler's executable as a search of PATH finds it, or NULL. */
static char *find_program(const char *name)
{
    if (strchr(name, '/')) return access(name, X_OK) ? NULL : base_xstrdup(name);
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *at = path;;) {
        const char *colon = strchr(at, ':');
        size_t len = colon ? (size_t)(colon - at) : strlen(at);
        char *dir = len ? base_xstrndup(at, len) : base_xstrdup(".");
        char *full = base_path_join(dir, name);
        free(dir);
        struct stat st;
        if (!stat(full, &st) && S_ISREG(st.st_mode) && !access(full, X_OK)) return full;
        free(full);
        if (!colon) return NULL;
        at = colon + 1;
    }
}

/* A compiler is one program, run without a shell: a value with blanks
 * ("gcc -std=gnu11", "ccache gcc") is taken as a file of that name, so it
 * must be one (a path with a space in a folder's name is). */
static int check_compiler(const char *cc, const char *from, lcm_err *err)
{
    if (!cc[strcspn(cc, " \t\n\r\v\f")]) return 0;
    char *found = find_program(cc);
    free(found);
    if (found) return 0;
    char *shown = base_escaped(cc);
    int rc = base_fail(err, LCM_E_COMPILE, "%s='%s': the C compiler must be one program (a name on PATH or a path), "
                      "not a command line; a script of your own can run it with arguments", from, shown);
    free(shown);
    return rc;
}

/* A key for what `cc --version` and `cc -dumpmachine` say, from the
 * compiler's file alone (its device, inode, size and times, following
 * links): a new or switched compiler is another file.  Only for a binary
 * (ELF): a script may run another compiler that changes behind it, and is
 * asked every time.  0 when there is no such key. */
static int compiler_file_key(const char *cc, char key[65])
{
    char *exe = find_program(cc);
    struct stat st;
    unsigned char magic[4] = {0};
    FILE *f = exe ? fopen(exe, "rb") : NULL;
    int binary = f && fread(magic, 1, 4, f) == 4 && !memcmp(magic, "\177ELF", 4);
    if (f) fclose(f);
    if (!binary || stat(exe, &st)) {
        free(exe);
        return 0;
    }
    char *text = base_xasprintf("lcm-cc-identity 1\n%s\n%llu %llu %lld %lld.%09ld %lld.%09ld\n", exe,
                               (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, (long long)st.st_size,
                               (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec,
                               st.st_ctim.tv_nsec);
    lcm_sha256 h;
    base_sha256_init(&h);
    base_sha256_update(&h, text, strlen(text));
    base_sha256_hex_final(&h, key);
    free(text), free(exe);
    return 1;
}

/* What makes compiled code differ besides its source: the compiler's
 * version and target, the flags, and (because of -march=native) the CPU.
 * The compiler's own answers are kept in the cache (kind "cc", keyed by
 * its file), so a run with a cached solver starts no process. */
static int compiler_identity(const char *cc, const char *from, lcm_cache *cache, lcm_sb *id, lcm_err *err)
{
    char key[65];
    int keyed = compiler_file_key(cc, key);
    void *known = NULL;
    size_t known_len = 0;
    if (keyed && be_cache_get(cache, "cc", key, &known, &known_len)) {
        base_sb_putn(id, known, known_len);
        free(known);
    } else {
        char *argv[] = {(char *)cc, "--version", NULL};
        char *out;
        int st = be_run_capture(argv, NULL, &out);
        if (st != 0) {
            char why[64] = "";
            if (st >= LCM_RUN_SIGNALED) snprintf(why, sizeof why, "killed by signal %d, %s", st - LCM_RUN_SIGNALED,
                                                 strsignal(st - LCM_RUN_SIGNALED));
            else if (st > 0 && !*out) snprintf(why, sizeof why, "exit status %d", st);
            int rc = base_fail(err, LCM_E_COMPILE, "the C compiler '%s'%s%s%s does not run (%s%s%s); %s", cc,
                              *from ? " (" : "", from, *from ? ")" : "", why, *why && *out ? ": " : "", out,
                              *from ? "name a working compiler there" : "install gcc or set LCM_CC");
            free(out);
            return rc;
        }
        size_t start = id->len;
        char *nl = strchr(out, '\n');
        if (nl) *nl = 0;
        base_sb_printf(id, "cc=%s\nversion=%s\n", cc, out);
        free(out);
        char *argv2[] = {(char *)cc, "-dumpmachine", NULL};
        if (be_run_capture(argv2, NULL, &out) == 0) base_sb_printf(id, "target=%s", out);
        free(out);
        if (keyed) /* asked again if not */
            be_cache_put(cache, "cc", key, NULL, cc, id->s + start, id->len - start, NULL);
    }
    for (const char *const *f = CFLAGS; *f; ++f) base_sb_printf(id, "flag=%s\n", *f);
    char *cpuinfo = sys_read_file("/proc/cpuinfo", NULL, NULL);
    if (cpuinfo) {
        /* the first processor's model and feature flags */
        const char *keys[] = {"model name", "flags"};
        for (int k = 0; k < 2; ++k) {
            char *p = strstr(cpuinfo, keys[k]);
            if (!p) continue;
            char *e = strchr(p, '\n');
            if (e) base_sb_putn(id, p, (size_t)(e - p)), base_sb_putc(id, '\n');
        }
        free(cpuinfo);
    }
    return 0;
}

/* The compile's folder in TMPDIR, which is also the compiler's TMPDIR (so
 * that its own temporaries are there too), registered with the signal
 * handler of ir/tempfile.h from mkdtemp on: an interrupt (Ctrl-C, a job
 * scheduler's SIGTERM) passes to the compiler, waits for it and removes the
 * folder with what it holds, so no compiler, half-built solver or compiler
 * temporary outlives lcm. */
typedef struct compile_dir {
    char *dir, *src, *obj;
} compile_dir;

/* Removes the folder (made by mkdtemp, so its own) with what the compiler
 * left there, or keeps it (the source of a failed compile, for the user),
 * then unregisters it: a signal in between finds names gone, not a folder
 * no longer registered. */
static void compile_dir_end(compile_dir *d, int keep)
{
    if (!keep) {
        DIR *f = opendir(d->dir); /* the compiler's temporaries too, when it was stopped */
        for (struct dirent *e; f && (e = readdir(f));)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlinkat(dirfd(f), e->d_name, 0);
        if (f) closedir(f);
        rmdir(d->dir);
    }
    sys_temp_unregister(d->dir);
    free(d->dir), free(d->src), free(d->obj);
}

/* Whether the compile may work in folder tmp: what is compiled there is
 * loaded and run, and in a folder others may write into without the
 * sticky bit (which /tmp has) they could rename the compile's own folder
 * away and put theirs, with their code, under its name. */
static int private_enough(const char *tmp, lcm_err *err)
{
    struct stat st;
    if (stat(tmp, &st) != 0) return 0; /* mkdtemp says why */
    if (st.st_uid != geteuid() && st.st_uid != 0)
        return base_fail(err, LCM_E_IO, "TMPDIR '%s' belongs to another user (uid %ld): the solver is compiled there "
                        "and then run; set TMPDIR to a folder of your own", tmp, (long)st.st_uid);
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
        return base_fail(err, LCM_E_IO, "TMPDIR '%s': others may write into it (mode %03o) and it has no sticky bit, so "
                        "they could replace the solver compiled there before it is run; set TMPDIR to a folder of "
                        "your own (or one like /tmp)", tmp, (unsigned)(st.st_mode & 0777));
    return 0;
}

/* Compiles source into a shared object; returns its bytes. */
static int compile(const char *cc, const char *source, int precision, void **so, size_t *len, lcm_err *err)
{
    const char *tmp = getenv("TMPDIR");
    const int given = tmp && *tmp;
    if (!given) tmp = "/tmp";
    if (private_enough(tmp, err)) return err->code;
    compile_dir d = {.dir = base_xasprintf("%s/lcm-cc-XXXXXX", tmp)};
    if (!mkdtemp(d.dir)) {
        int rc = base_fail(err, LCM_E_IO, "cannot create a temporary directory in %s (%s): %s", tmp,
                          given ? "TMPDIR" : "the default, TMPDIR being unset",
                          strerror(errno));
        free(d.dir);
        return rc;
    }
    d.src = base_path_join(d.dir, "kernels.c"), d.obj = base_path_join(d.dir, "kernels.so");
    sys_temp_register_scratch(d.dir);
    char define[32];
    snprintf(define, sizeof define, "-DLCM_PRECISION=%d", precision);
    int rc = sys_write_file_atomic(d.src, source, strlen(source), err), keep = 0;
    if (!rc) {
        char *argv[sizeof CFLAGS / sizeof *CFLAGS + 7]; /* cc, the flags, the define, -o obj src -lm, NULL */
        int n = 0;
        argv[n++] = (char *)cc;
        for (const char *const *f = CFLAGS; *f; ++f) argv[n++] = (char *)*f;
        argv[n++] = define, argv[n++] = "-o", argv[n++] = d.obj, argv[n++] = d.src, argv[n++] = "-lm";
        argv[n] = NULL;
        char *out;
        int st = be_run_capture(argv, d.dir, &out);
        if (st >= LCM_RUN_SIGNALED) { /* this process lives on (its host handles the signal): say so */
            rc = base_fail(err, LCM_E_COMPILE, "the C compiler '%s' was stopped by signal %d (%s) before it finished; "
                          "nothing was compiled", cc, st - LCM_RUN_SIGNALED, strsignal(st - LCM_RUN_SIGNALED));
        } else if (st != 0) {
            /* keep the source for inspection; show the start of the diagnostics */
            lcm_sb b;
            base_sb_init(&b);
            base_sb_printf(&b, "compiling the generated solver with '%s' failed (status %d)", cc, st);
            be_explain_compile_log(out, source, &b);
            base_sb_printf(&b, "\n  the source is kept at %s\n  compiler output:\n%.2000s", d.src, out);
            rc = base_fail(err, LCM_E_COMPILE, "%s", b.s);
            base_sb_free(&b);
            keep = 1;
        } else if (!sys_file_exists(d.obj)) {
            rc = base_fail(err, LCM_E_COMPILE, "the C compiler '%s' succeeded but wrote no solver (is it a C compiler? "
                          "LCM_CC or CC names it)%s%.2000s", cc, *out ? "; its output:\n" : "", out);
        } else {
            *so = sys_read_file(d.obj, len, err);
            if (!*so) rc = err->code;
        }
        free(out);
    }
    compile_dir_end(&d, keep);
    return rc;
}

/* dlopen from memory: the shared object never needs a path of its own. */
static int load(cpu_backend *b, const void *so, size_t len, lcm_err *err)
{
    b->memfd = memfd_create("lcm-solver", MFD_CLOEXEC);
    if (b->memfd < 0) return base_fail(err, LCM_E_IO, "memfd_create: %s", strerror(errno));
    const char *p = so;
    size_t left = len;
    while (left) {
        ssize_t w = write(b->memfd, p, left);
        if (w < 0) {
            if (errno == EINTR) continue;
            return base_fail(err, LCM_E_IO, "writing the solver to memory: %s", strerror(errno));
        }
        p += w, left -= (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", b->memfd);
    b->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!b->dl) return base_fail(err, LCM_E_COMPILE, "cannot load the compiled solver: %s", dlerror());
    return 0;
}

/* Runs an entry of kernel k over [0, n) in chunks on the threads: fn (a
 * solve or table entry) when sim is NULL, else its simulation entry. */
static int cpu_run_chunks(cpu_backend *b, int kernel, kernel_fn fn, const lcm_kernel_args *args,
                          const lcm_sim_args *sim, lcm_index n, lcm_err *err)
{
    if (kernel < 0 || kernel >= b->nkernels) return base_fail(err, LCM_E_INTERNAL, "no kernel %d", kernel);
    if (!fn && !sim)
        return base_fail(err, LCM_E_COMPILE, "the compiled solver has no table entry for kernel '%s'; regenerate "
                        "the model", b->names[kernel]);
    int threads = base_host_threads(b->threads);
    lcm_index chunk = n / ((lcm_index)threads * 16);
    if (chunk < 1) chunk = 1;
    lcm_index nchunks = (n + chunk - 1) / chunk;
    sim_fn sfn = b->sims[kernel];
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (lcm_index c = 0; c < nchunks; ++c) {
        lcm_index lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
        if (sim) sfn(args, sim, lo, hi);
        else fn(args, lo, hi);
    }
    return 0;
}

/* Starts the OpenMP threads now, while little memory is in use: their
 * stacks then count among what the memory check (memory.c) sees in use,
 * and a process short of address space (ulimit -v) is refused there with
 * the figures instead of stopped by libgomp when the first solve would
 * start them. */
static void start_threads(const cpu_backend *b)
{
    int threads = base_host_threads(b->threads), started = 0;
#pragma omp parallel num_threads(threads) /* not empty: GCC drops an empty region */
    {
#pragma omp atomic
        ++started;
    }
    (void)started;
}

static int cpu_run(lcm_backend *base, int kernel, const lcm_kernel_args *args, lcm_index n, int queue, lcm_err *err)
{
    (void)queue;
    cpu_backend *b = (cpu_backend *)base;
    return cpu_run_chunks(b, kernel, kernel >= 0 && kernel < b->nkernels ? b->kernels[kernel] : NULL, args, NULL, n,
                          err);
}

static int cpu_run_table(lcm_backend *base, int kernel, int pass, const lcm_kernel_args *args, lcm_index n, int queue,
                         lcm_err *err)
{
    (void)queue;
    cpu_backend *b = (cpu_backend *)base;
    int ok = kernel >= 0 && kernel < b->nkernels && pass >= 0 && pass < LCM_TABLE_PASSES;
    return cpu_run_chunks(b, kernel, ok ? b->tables[kernel * LCM_TABLE_PASSES + pass] : NULL, args, NULL, n, err);
}

static int cpu_run_sim(lcm_backend *base, int kernel, const lcm_kernel_args *args, const lcm_sim_args *sim,
                       lcm_index n, int queue, lcm_err *err)
{
    (void)queue;
    return cpu_run_chunks((cpu_backend *)base, kernel, NULL, args, sim, n, err);
}

/* Gives back what load and find_kernels took (for another try). */
static void unload(cpu_backend *b)
{
    if (b->dl) dlclose(b->dl);
    if (b->memfd >= 0) close(b->memfd);
    free(b->kernels), free(b->sims), free(b->tables), free(b->names);
    b->dl = NULL, b->memfd = -1;
    b->kernels = NULL, b->sims = NULL, b->tables = NULL, b->names = NULL;
}

static void cpu_destroy(lcm_backend *base)
{
    cpu_backend *b = (cpu_backend *)base;
    unload(b);
    free(base->cache_entry);
    be_host_backend_release(base);
    free(b);
}

/* The kernels' entry points in the loaded solver. */
static int find_kernels(cpu_backend *b, const ir_model *m, lcm_err *err)
{
    b->nkernels = m->nkernels;
    b->kernels = base_xcalloc((size_t)m->nkernels + 1, sizeof *b->kernels);
    b->sims = base_xcalloc((size_t)m->nkernels + 1, sizeof *b->sims);
    b->tables = base_xcalloc((size_t)m->nkernels * LCM_TABLE_PASSES + 1, sizeof *b->tables);
    b->names = base_xcalloc((size_t)m->nkernels + 1, sizeof *b->names);
    for (int k = 0; k < m->nkernels; ++k) {
        char sim_symbol[256], table_symbol[256];
        snprintf(sim_symbol, sizeof sim_symbol, "%s_sim", m->kernels[k].symbol);
        b->names[k] = m->kernels[k].symbol;
        *(void **)&b->kernels[k] = dlsym(b->dl, m->kernels[k].symbol);
        *(void **)&b->sims[k] = dlsym(b->dl, sim_symbol);
        for (int pass = 0; pass < LCM_TABLE_PASSES; ++pass) { /* only kernels with a table have them */
            be_table_symbol(m->kernels[k].symbol, pass, table_symbol, sizeof table_symbol);
            *(void **)&b->tables[k * LCM_TABLE_PASSES + pass] = dlsym(b->dl, table_symbol);
        }
        if (!b->kernels[k] || !b->sims[k])
            return base_fail(err, LCM_E_COMPILE, "the compiled solver has no kernel '%s'; regenerate the model",
                            b->kernels[k] ? sim_symbol : m->kernels[k].symbol);
    }
    return 0;
}

int be_backend_cpu_new(const ir_model *m, const char *source, int precision, lcm_cache *cache,
                        int threads, lcm_backend **out, lcm_err *err)
{
    cpu_backend *b = base_xcalloc(1, sizeof *b);
    b->memfd = -1;
    b->threads = threads;
    b->base.name = "cpu";
    b->base.precision = precision;
    be_host_backend_ops(&b->base);
    b->base.launch = cpu_run;
    b->base.launch_sim = cpu_run_sim;
    b->base.launch_table = cpu_run_table;
    b->base.destroy = cpu_destroy;

    const char *from, *cc = compiler(&from);
    lcm_sb id;
    base_sb_init(&id);
    void *so = NULL;
    size_t len = 0;
    int rc, stored = 1;
    LCM_CHECK_GOTO(check_compiler(cc, from, err), rc, done);
    LCM_CHECK_GOTO(compiler_identity(cc, from, cache, &id, err), rc, done);
    lcm_sha256 h;
    base_sha256_init(&h);
    char head[64];
    snprintf(head, sizeof head, "lcm-cpu abi=%d precision=%d\n", LCM_ABI_VERSION, precision);
    base_sha256_update(&h, head, strlen(head));
    base_sha256_update(&h, id.s, id.len);
    base_sha256_update(&h, source, strlen(source));
    char key[65];
    base_sha256_hex_final(&h, key);

    /* a cached solver that does not load with its kernels (a compiler that
     * wrote something else, an entry forged with a valid checksum) is
     * rebuilt; a compiled one goes into the cache only once it loads */
    if (be_cache_get(cache, "cpu", key, &so, &len)) {
        lcm_err why = {0};
        if (!load(b, so, len, &why) && !find_kernels(b, m, &why)) goto loaded;
        char *entry = be_cache_entry_path(cache, "cpu", key);
        io_warn("the cached solver %s does not load (%s); rebuilding it", entry, why.msg);
        free(entry);
        unload(b);
        free(so);
        so = NULL;
    }
    LCM_CHECK_GOTO(be_cache_check_required(cache, "cpu", err), rc, done);
    double t0 = base_now_seconds();
    LCM_CHECK_GOTO(compile(cc, source, precision, &so, &len, err), rc, done);
    b->base.compiled = 1;
    b->base.compile_seconds = base_now_seconds() - t0;
    LCM_CHECK_GOTO(load(b, so, len, err), rc, done);
    LCM_CHECK_GOTO(find_kernels(b, m, err), rc, done);
    if (be_cache_put(cache, "cpu", key, m->name, precision == 32 ? "float32" : "float64", so, len, err)) {
        stored = 0;
        LCM_CHECK_GOTO(cache->required ? err->code : 0, rc, done);
    }
loaded:
    if (stored) b->base.cache_entry = be_cache_entry_path(cache, "cpu", key);
    start_threads(b);
    *out = &b->base;
done:
    base_sb_free(&id);
    free(so);
    if (rc) cpu_destroy(&b->base);
    return rc;
}

/* ---- host memory ---------------------------------------------------------- */
static void *host_alloc(lcm_backend *b, size_t bytes, lcm_err *err)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) base_fail(err, LCM_E_MEMORY, "out of host memory allocating %.1f MiB", (double)bytes / 1048576.0);
    return p;
}
static void host_release(lcm_backend *b, void *p) { free(p); }
static int host_copy(lcm_backend *b, void *dst, const void *src, size_t bytes, int queue, lcm_err *err)
{
    if (dst != src) memcpy(dst, src, bytes);
    return 0;
}
static int host_nothing(lcm_backend *b, lcm_err *err) { return 0; }

/* Host backends run what is queued at once: a stamp is the time it is taken. */
static int host_stamp(lcm_backend *b, int i, lcm_err *err)
{
    if (i < 0) return base_fail(err, LCM_E_INTERNAL, "stamp %d", i);
    LCM_GROW(b->stamp_at, b->stamp_cap, (size_t)i + 1);
    b->stamp_at[i] = base_now_seconds();
    return 0;
}

static double host_stamp_seconds(lcm_backend *b, int i, int j) { return b->stamp_at[j] - b->stamp_at[i]; }

void be_host_backend_release(lcm_backend *b)
{
    free(b->stamp_at);
    b->stamp_at = NULL, b->stamp_cap = 0;
}

void be_host_backend_ops(lcm_backend *b)
{
    b->stamp = host_stamp;
    b->stamp_seconds = host_stamp_seconds;
    b->host_memory = 1;
    b->alloc = b->alloc_host = host_alloc;
    b->release = b->release_host = host_release;
    b->upload = b->download = host_copy;
    b->barrier = b->finish = host_nothing;
}
