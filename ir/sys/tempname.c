/* tempname.c - see tempname.h. */
#define _GNU_SOURCE /* getrandom, O_CLOEXEC, dirfd */
#include "tempname.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base.h"

#define HOST_DIGITS 16  /* boot and pid namespace, in hex */
#define RANDOM_CHARS 10 /* 62^10 names */

/* ---- who we are --------------------------------------------------------------- */
/* The boot and pid namespace, or all zeros when /proc does not tell: then
 * this process judges no temporary stale, and nobody judges its own. */
static char host[HOST_DIGITS + 1];
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

static void read_host(void)
{
    unsigned boot = 0, ns = 0;
    char text[64] = {0}, link[64] = {0};
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    int got = fd >= 0 && read(fd, text, sizeof text - 1) >= 8 && sscanf(text, "%8x", &boot) == 1;
    if (fd >= 0) close(fd);
    ssize_t n = readlink("/proc/self/ns/pid", link, sizeof link - 1); /* "pid:[4026531836]" */
    unsigned long long inode = 0;
    got = got && n > 0 && sscanf(link, "pid:[%llu]", &inode) == 1;
    ns = (unsigned)inode;
    snprintf(host, sizeof host, "%08x%08x", got ? boot : 0, got ? ns : 0);
}

static const char *this_host(void)
{
    pthread_once(&host_once, read_host);
    return host;
}

static int known(const char *h) { return strspn(h, "0") != HOST_DIGITS; }

/* The start time of process pid (clock ticks since boot, field 22 of
 * /proc/PID/stat: after "pid (comm)", whose comm may hold anything but
 * ends at the last ')'), or -1. */
static long long start_time(long pid)
{
    char path[48], stat[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (n <= 0) return -1;
    stat[n] = 0;
    const char *p = strrchr(stat, ')');
    for (int field = 2; p && field < 22; ++field) p = strchr(p + 1, ' '); /* fields 3 to 22 follow ") " */
    char *end;
    long long t = p ? strtoll(p + 1, &end, 10) : -1;
    return p && end != p + 1 ? t : -1;
}

static void random_chars(char out[RANDOM_CHARS + 1])
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static atomic_uint counter;
    unsigned char r[RANDOM_CHARS];
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) { /* the clock, the process and a counter */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)ts.tv_sec << 30) ^
                               ((unsigned long long)getpid() << 12) ^ atomic_fetch_add(&counter, 1);
        for (int i = 0; i < RANDOM_CHARS; ++i)
            x = x * 6364136223846793005ULL + 1442695040888963407ULL, r[i] = (unsigned char)(x >> 56);
    }
    for (int i = 0; i < RANDOM_CHARS; ++i) out[i] = alphabet[r[i] % 62];
    out[RANDOM_CHARS] = 0;
}

char *sys_temp_name(const char *path)
{
    char suffix[RANDOM_CHARS + 1];
    random_chars(suffix);
    long pid = (long)getpid();
    return base_xasprintf("%s.tmp.%s.%ld.%lld.%s", path, this_host(), pid, start_time(pid), suffix);
}

/* ---- who made a temporary ------------------------------------------------------ */
/* The digits at *p (advanced past them and one '.' after), or -1. */
static long long number_then_dot(const char **p)
{
    const char *s = *p;
    size_t n = strspn(s, "0123456789");
    if (!n || n > 18 || s[n] != '.') return -1;
    *p = s + n + 1;
    return strtoll(s, NULL, 10);
}

/* Whether the process that made a temporary named with tag (what follows
 * ".tmp.") is gone, as far as this process can tell. */
static int maker_gone(const char *tag)
{
    const char *h = this_host(), *p = tag + HOST_DIGITS + 1;
    if (!known(h) || strncmp(tag, h, HOST_DIGITS) || tag[HOST_DIGITS] != '.') return 0; /* another boot, pid space */
    long long pid = number_then_dot(&p), start = number_then_dot(&p);
    if (pid <= 0 || start < 0 || strlen(p) != RANDOM_CHARS) return 0;
    if (kill((pid_t)pid, 0) != 0) return errno == ESRCH; /* EPERM: it runs, as another user */
    long long now = start_time((long)pid);
    return now >= 0 && now != start; /* its pid reused; -1: cannot tell */
}

int sys_temp_stale(int dirfd, const char *name, const char *base)
{
    const char *tag = NULL;
    if (base) { /* exactly base's */
        size_t n = strlen(base);
        if (!strncmp(name, base, n) && !strncmp(name + n, ".tmp.", 5)) tag = name + n + 5;
    } else /* the last ".tmp.": NAME may hold one, the tag does not */
        for (const char *s = name; (s = strstr(s, ".tmp.")); ++s) tag = s + 5;
    struct stat st;
    return tag && maker_gone(tag) && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
           st.st_uid == geteuid();
}

int sys_temp_sweep(int dirfd, const char *base)
{
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* a descriptor of its own to read */
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        return 0;
    }
    int removed = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (sys_temp_stale(dirfd, e->d_name, base) && unlinkat(dirfd, e->d_name, 0) == 0) ++removed;
    closedir(d);
    return removed;
}

int sys_check_output_path(const char *path, lcm_err *err)
{
    struct stat st;
    if (lstat(path, &st) != 0 || S_ISREG(st.st_mode)) return 0;
    return base_fail(err, LCM_E_IO, "'%s' exists and is not a regular file (%s); outputs are written to a "
                    "temporary file and renamed onto their name, so give the path of a regular file",
                    path, S_ISDIR(st.st_mode) ? "a directory" : S_ISLNK(st.st_mode) ? "a symbolic link"
                                              : "a device, pipe or socket");
}
