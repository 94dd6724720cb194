/* The cache entry format and store: round trip, corruption detected, an
 * entry copied under another key refused, files that are no entries (a
 * FIFO, links, a huge sparse file, a folder) refused without hanging or
 * reading them, untrusted folders not used, temporaries never written
 * through a planted link, unwritable directories tolerated. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "check.h"
#include "files.h"
#include "log.h"
#include "tempname.h"
#include "testlib.h"

static const char payload[] = "pretend this is a shared object \x00\x01\x02 with binary bytes";
#define PLEN sizeof payload

static void test_format(void)
{
    lcm_sb b;
    base_sb_init(&b);
    be_cache_encode("cpu", "k1", "m", "float64", payload, PLEN, &b);
    const char *p;
    size_t n;
    CHECK(be_cache_decode("cpu", "k1", b.s, b.len, &p, &n, NULL, NULL) == NULL && n == PLEN && !memcmp(p, payload, PLEN));
    CHECK(!strcmp(be_cache_decode("cpu", "k1", b.s, b.len - 1, &p, &n, NULL, NULL), "truncated payload"));
    CHECK(!strcmp(be_cache_decode("cpu", "k1", b.s, 20, &p, &n, NULL, NULL), "truncated header"));
    /* the entry names what it holds: another key or kind is refused */
    CHECK(!strcmp(be_cache_decode("cpu", "k2", b.s, b.len, &p, &n, NULL, NULL), "it holds the solver of another key"));
    CHECK(!strcmp(be_cache_decode("cpu", "k", b.s, b.len, &p, &n, NULL, NULL), "it holds the solver of another key"));
    CHECK(!strcmp(be_cache_decode("cuda", "k1", b.s, b.len, &p, &n, NULL, NULL), "it holds the solver of another key"));
    for (size_t bit = 0; bit < b.len * 8; bit += 37) {
        b.s[bit / 8] ^= (char)(1 << (bit % 8));
        CHECK_MSG(be_cache_decode("cpu", "k1", b.s, b.len, &p, &n, NULL, NULL) != NULL, "bit %zu flipped undetected", bit);
        b.s[bit / 8] ^= (char)(1 << (bit % 8));
    }
    /* the label: the model's name and what the entry is, read back; control
     * characters cannot end it early, and it is cut at 1024 bytes */
    char *model = NULL, *what = NULL;
    CHECK(be_cache_decode("cpu", "k1", b.s, b.len, &p, &n, &model, &what) == NULL);
    CHECK(model && what && !strcmp(model, "m") && !strcmp(what, "float64"));
    free(model), free(what);
    char long_name[1300];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    lcm_sb odd;
    base_sb_init(&odd);
    be_cache_encode("cpu", "k1", "two\nlines", long_name, payload, PLEN, &odd);
    CHECK(be_cache_decode("cpu", "k1", odd.s, odd.len, &p, &n, &model, &what) == NULL && n == PLEN);
    CHECK_MSG(model && !strcmp(model, "two?lines"), "model '%s'", model ? model : "(none)");
    CHECK(what && strlen(what) == 1024);
    free(model), free(what);
    base_sb_free(&odd);
    /* no label at all: an entry of the compiler's answers may have none */
    base_sb_init(&odd);
    be_cache_encode("cc", "k9", NULL, NULL, payload, PLEN, &odd);
    CHECK(be_cache_decode("cc", "k9", odd.s, odd.len, &p, &n, &model, &what) == NULL && n == PLEN);
    CHECK(model && !*model && what && !*what);
    free(model), free(what);
    CHECK(!strcmp(be_cache_decode("cc", "k", odd.s, odd.len, &p, &n, NULL, NULL), "it holds the solver of another key"));
    base_sb_free(&odd);
    /* an entry of another format is of another version */
    b.s[8] = 1;
    CHECK(!strcmp(be_cache_decode("cpu", "k1", b.s, b.len, &p, &n, NULL, NULL), "written by another version of lcm"));
    base_sb_free(&b);
}

/* Writes `len` bytes of `data` as the file at path (plainly, no rename). */
static void plant(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(data, 1, len, f) == len);
    if (f) fclose(f);
}

/* get finds nothing at the entry and removes what was there. */
static void check_refused(lcm_cache *c, const char *key, const char *what)
{
    void *data = NULL;
    size_t len = 0;
    char *path = be_cache_entry_path(c, "cpu", key);
    CHECK_MSG(be_cache_get(c, "cpu", key, &data, &len) == 0, "%s was used as an entry", what);
    struct stat st;
    CHECK_MSG(lstat(path, &st) != 0, "%s was left in place", what);
    /* rebuilt: put replaces it, get finds the new one */
    CHECK(be_cache_put(c, "cpu", key, "m", "float64", payload, PLEN, NULL) == 0);
    CHECK(be_cache_get(c, "cpu", key, &data, &len) == 1 && len == PLEN && !memcmp(data, payload, PLEN));
    free(data);
    free(path);
}

/* The bytes this process has read so far (rchar of /proc/self/io: every
 * read, from the page cache too), or -1 where the system does not count
 * them.  A byte count, not a time: a loaded machine stays a fair test. */
static long long bytes_read(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    long long n = -1;
    char line[128];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "rchar: ", 7)) n = atoll(line + 7);
    if (f) fclose(f);
    return n;
}

static void test_store(const char *dir)
{
    lcm_cache c;
    be_cache_open(&c, dir);
    void *data;
    size_t len;
    CHECK(be_cache_get(&c, "cpu", "k1", &data, &len) == 0);
    CHECK(be_cache_put(&c, "cpu", "k1", "m", "float64", payload, PLEN, NULL) == 0);
    CHECK(be_cache_get(&c, "cpu", "k1", &data, &len) == 1 && len == PLEN && !memcmp(data, payload, PLEN));
    free(data);
    char *cpu = base_xasprintf("%s/cpu", dir);
    struct stat st;
    CHECK(stat(cpu, &st) == 0 && (st.st_mode & 022) == 0);

    /* a damaged entry: half of it */
    char *path = be_cache_entry_path(&c, "cpu", "k1");
    lcm_sb b;
    base_sb_init(&b);
    be_cache_encode("cpu", "k1", "m", "float64", payload, PLEN, &b);
    plant(path, b.s, b.len / 2);
    check_refused(&c, "k1", "a truncated entry");

    /* another key's entry copied under this key (valid in itself) */
    char *other = be_cache_entry_path(&c, "cpu", "k2");
    const char not_k1[] = "the solver of another model";
    CHECK(be_cache_put(&c, "cpu", "k2", "m", "float64", not_k1, sizeof not_k1, NULL) == 0);
    base_sb_free(&b);
    base_sb_init(&b);
    be_cache_encode("cpu", "k2", "m", "float64", not_k1, sizeof not_k1, &b);
    plant(path, b.s, b.len);
    CHECK(be_cache_get(&c, "cpu", "k2", &data, &len) == 1 && len == sizeof not_k1);
    free(data);
    check_refused(&c, "k1", "another key's entry");

    /* an entry of the previous cache format */
    b.s[8] = 1;
    plant(path, b.s, b.len);
    check_refused(&c, "k1", "an entry of format 1");

    /* a FIFO (nobody writes it: reading would block for ever) */
    alarm(20); /* a hang fails the test instead of blocking it */
    unlink(path);
    CHECK(mkfifo(path, 0644) == 0);
    check_refused(&c, "k1", "a FIFO");
    alarm(0);

    /* a link to /dev/zero (endless), and one to a valid entry elsewhere */
    unlink(path);
    CHECK(symlink("/dev/zero", path) == 0);
    check_refused(&c, "k1", "a link to /dev/zero");
    unlink(path);
    CHECK(symlink(other, path) == 0);
    check_refused(&c, "k1", "a link to another entry");

    /* a huge sparse file: refused by its size, unread */
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)10 << 30) == 0);
    if (fd >= 0) close(fd);
    long long read_before = bytes_read();
    check_refused(&c, "k1", "a 10 GiB sparse file");
    long long read_during = bytes_read() - read_before;
    CHECK_MSG(read_before < 0 || read_during < (1 << 20), "the sparse file was read: %lld bytes", read_during);

    /* a folder under the entry's name: nothing found, nothing removed */
    unlink(path);
    CHECK(mkdir(path, 0755) == 0);
    CHECK(be_cache_get(&c, "cpu", "k1", &data, &len) == 0);
    CHECK(rmdir(path) == 0);

    /* a link planted at the old, predictable temporary name is not written through */
    char *victim = base_xasprintf("%s/victim", dir), *planted = base_xasprintf("%s.tmp.%ld", path, (long)getpid());
    plant(victim, "keep", 4);
    CHECK(symlink(victim, planted) == 0);
    CHECK(be_cache_put(&c, "cpu", "k1", "m", "float64", payload, PLEN, NULL) == 0);
    char *kept = sys_read_file(victim, &len, NULL);
    CHECK(kept && len == 4 && !memcmp(kept, "keep", 4));
    free(kept);
    unlink(planted);

    /* clear removes entries and the temporaries killed runs left, nothing
     * else: not a temporary of a run that is writing (tempname.h) */
    char *note = base_xasprintf("%s/notes.txt", cpu), *entry = base_xasprintf("%s/k3.lcmc", cpu);
    char *stray = test_dead_temp_name(entry), *writing = sys_temp_name(entry);
    plant(note, "mine", 4);
    plant(stray, "half", 4);
    plant(writing, "half", 4);
    lcm_err err = {0};
    /* clear of one model: its entries only (k4 is another model's) */
    CHECK(be_cache_put(&c, "cpu", "k4", "other", "float32", payload, PLEN, NULL) == 0);
    CHECK(be_cache_clear(&c, "other", &err) == 2); /* k4, and the stray temporary */
    CHECK(!sys_file_exists(stray) && sys_file_exists(path) && be_cache_get(&c, "cpu", "k1", &data, &len) == 1);
    free(data);
    CHECK(be_cache_clear(&c, "no such model", &err) == 0);
    char long_model[1300];
    memset(long_model, 'y', sizeof long_model - 1);
    long_model[sizeof long_model - 1] = 0;
    CHECK(be_cache_put(&c, "cpu", "k5", long_model, "float64", payload, PLEN, NULL) == 0);
    CHECK(be_cache_clear(&c, long_model, &err) == 1); /* the whole name, as given */
    plant(stray, "half", 4); /* again */
    CHECK(be_cache_clear(&c, NULL, &err) == 3); /* k1, k2 and the stray temporary */
    CHECK(sys_file_exists(note) && sys_file_exists(victim) && !sys_file_exists(stray) && !sys_file_exists(path) &&
          sys_file_exists(writing));
    unlink(note), unlink(writing);
    free(note), free(stray), free(writing), free(entry), free(victim), free(planted);
    free(other), free(path), free(cpu);
    base_sb_free(&b);
    be_cache_close(&c);
}

static void scan_count(const lcm_cache_entry *e, void *ctx)
{
    int *n = ctx;
    n[0]++;
    n[1] += e->problem != NULL;
}

/* Folders others control are not used; the top folder may be a link to
 * one of the user's own. */
static void test_folders(const char *dir)
{
    void *data;
    size_t len;
    lcm_cache c;
    /* the kind folder is a link to elsewhere: neither read nor written */
    char *top = base_xasprintf("%s/linked-kind", dir), *elsewhere = base_xasprintf("%s/elsewhere", dir);
    char *cpu = base_xasprintf("%s/cpu", top);
    CHECK(mkdir(top, 0755) == 0 && mkdir(elsewhere, 0755) == 0 && symlink(elsewhere, cpu) == 0);
    be_cache_open(&c, top);
    CHECK(be_cache_put(&c, "cpu", "k1", "m", "float64", payload, PLEN, NULL) != 0);
    CHECK(c.warned_unsafe == 1 && c.warned_write == 0);
    CHECK(be_cache_get(&c, "cpu", "k1", &data, &len) == 0);
    char *inside = base_xasprintf("%s/k1.lcmc", elsewhere);
    CHECK(!sys_file_exists(inside));
    lcm_err err = {0};
    CHECK(be_cache_clear(&c, NULL, &err) == 0);
    struct stat st;
    CHECK(lstat(cpu, &st) == 0 && S_ISLNK(st.st_mode)); /* not followed, not removed */
    be_cache_close(&c);

    /* a folder anyone may write into */
    char *open_dir = base_xasprintf("%s/world", dir);
    CHECK(mkdir(open_dir, 0755) == 0 && chmod(open_dir, 0777) == 0);
    be_cache_open(&c, open_dir);
    CHECK(be_cache_put(&c, "cpu", "k1", "m", "float64", payload, PLEN, NULL) != 0 && c.warned_unsafe == 1);
    CHECK(be_cache_get(&c, "cpu", "k1", &data, &len) == 0);
    be_cache_close(&c);

    /* the top folder a link to the user's own folder: used */
    char *own = base_xasprintf("%s/own", dir), *link = base_xasprintf("%s/own-link", dir);
    CHECK(mkdir(own, 0700) == 0 && symlink(own, link) == 0);
    be_cache_open(&c, link);
    CHECK(be_cache_put(&c, "cpu", "k1", "m", "float64", payload, PLEN, NULL) == 0 && c.warned_unsafe == 0);
    CHECK(be_cache_get(&c, "cpu", "k1", &data, &len) == 1 && len == PLEN);
    free(data);
    /* a damaged entry beside it: listed with its problem */
    char *bad = base_xasprintf("%s/cpu/k2.lcmc", own);
    CHECK(mkfifo(bad, 0644) == 0);
    int n[2] = {0, 0};
    CHECK(be_cache_scan(&c, scan_count, n) == 2 && n[0] == 2 && n[1] == 1);
    be_cache_close(&c);
    free(bad), free(own), free(link), free(open_dir), free(inside), free(top), free(elsewhere), free(cpu);
}

int main(void)
{
    lcm_set_log_level(LCM_LOG_OFF);
    test_format();
    char *dir = test_tmpdir("cache");
    char *store = base_xasprintf("%s/store", dir);
    test_store(store);
    test_folders(dir);

    /* a cache that cannot be written: put fails softly, get finds nothing */
    void *data;
    size_t len;
    lcm_cache c;
    be_cache_open(&c, "/dev/null/lcm-cache");
    CHECK(be_cache_put(&c, "cpu", "k1", "m", "float64", payload, PLEN, NULL) != 0);
    CHECK(c.warned_write == 1);
    CHECK(be_cache_get(&c, "cpu", "k1", &data, &len) == 0);
    be_cache_close(&c);

    /* a required cache (lcm compile): the same failures are errors, not
     * warnings; without err (an entry that does not matter) silent */
    be_cache_open(&c, "/dev/null/lcm-cache");
    c.required = 1;
    lcm_err err = {0};
    CHECK(be_cache_put(&c, "cpu", "k1", "m", "float64", payload, PLEN, NULL) != 0 && c.warned_write == 0);
    CHECK(be_cache_put(&c, "cpu", "k1", "m", "float64", payload, PLEN, &err) == LCM_E_IO && c.warned_write == 0);
    CHECK_MSG(strstr(err.msg, "the solver cache cannot take the compiled cpu solver: ") == err.msg, "%s", err.msg);
    be_cache_close(&c);
    char *world = base_xasprintf("%s/world", dir); /* made by test_folders: mode 777 */
    be_cache_open(&c, world);
    c.required = 1;
    memset(&err, 0, sizeof err);
    CHECK(be_cache_put(&c, "cpu", "k1", "m", "float64", payload, PLEN, &err) == LCM_E_IO && c.warned_unsafe == 1);
    CHECK_MSG(strstr(err.msg, "world: others may write into it (mode 777), and lcm would run code placed there"),
              "%s", err.msg);
    be_cache_close(&c);
    free(world);

    char *rm = base_xasprintf("rm -rf '%s'", dir);
    CHECK(system(rm) == 0);
    free(rm), free(store), free(dir);
    CHECK_DONE();
}
