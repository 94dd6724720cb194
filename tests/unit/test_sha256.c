/* SHA-256 against the FIPS 180-4 / NIST example vectors. */
#include <stdlib.h>

#include "check.h"
#include "sha256.h"

int main(void)
{
    char hex[65];
    base_sha256_hex("", 0, hex);
    CHECK(!strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    base_sha256_hex("abc", 3, hex);
    CHECK(!strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    base_sha256_hex(m448, strlen(m448), hex);
    CHECK(!strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    /* one million 'a', fed in uneven pieces */
    lcm_sha256 c;
    base_sha256_init(&c);
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    size_t off = 0, step = 1;
    while (off < 1000000) {
        size_t n = off + step > 1000000 ? 1000000 - off : step;
        base_sha256_update(&c, a + off, n);
        off += n, step = step * 3 % 997 + 1;
    }
    base_sha256_hex_final(&c, hex);
    CHECK(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    free(a);
    CHECK_DONE();
}
