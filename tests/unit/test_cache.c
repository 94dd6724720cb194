/* The cache entry format and store: round trip, corruption detected,
 * unwritable directories tolerated. */
#include <stdlib.h>
#include <unistd.h>

#include "cache.h"
#include "check.h"
#include "testlib.h"

int main(void)
{
    const char payload[] = "pretend this is a shared object \x00\x01\x02 with binary bytes";
    size_t plen = sizeof payload;
    lcm_sb b;
    sb_init(&b);
    lcm_cache_encode(payload, plen, &b);
    const char *p;
    size_t n;
    CHECK(lcm_cache_decode(b.s, b.len, &p, &n) == NULL && n == plen && !memcmp(p, payload, plen));
    CHECK(!strcmp(lcm_cache_decode(b.s, b.len - 1, &p, &n), "truncated payload"));
    CHECK(!strcmp(lcm_cache_decode(b.s, 20, &p, &n), "truncated header"));
    for (size_t bit = 0; bit < b.len * 8; bit += 37) {
        b.s[bit / 8] ^= (char)(1 << (bit % 8));
        CHECK_MSG(lcm_cache_decode(b.s, b.len, &p, &n) != NULL, "bit %zu flipped undetected", bit);
        b.s[bit / 8] ^= (char)(1 << (bit % 8));
    }

    char *dir = test_tmpdir("cache");
    lcm_cache c;
    lcm_cache_open(&c, dir);
    void *data;
    size_t len;
    CHECK(lcm_cache_get(&c, "cpu", "k1", &data, &len) == 0);
    CHECK(lcm_cache_put(&c, "cpu", "k1", payload, plen) == 0);
    CHECK(lcm_cache_get(&c, "cpu", "k1", &data, &len) == 1 && len == plen && !memcmp(data, payload, plen));
    free(data);
    /* a damaged entry is reported, removed and not returned */
    char *path = lcm_cache_entry_path(&c, "cpu", "k1");
    lcm_err err = {0};
    CHECK_OK(write_file_atomic(path, b.s, b.len / 2, &err));
    CHECK(lcm_cache_get(&c, "cpu", "k1", &data, &len) == 0);
    CHECK(!file_exists(path));
    free(path);
    lcm_cache_close(&c);

    /* a cache that cannot be written: put fails softly, get finds nothing */
    lcm_cache_open(&c, "/dev/null/lcm-cache");
    CHECK(lcm_cache_put(&c, "cpu", "k1", payload, plen) != 0);
    CHECK(c.warned_write == 1);
    CHECK(lcm_cache_get(&c, "cpu", "k1", &data, &len) == 0);
    lcm_cache_close(&c);
    sb_free(&b);
    free(dir);
    CHECK_DONE();
}
