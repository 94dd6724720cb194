/* sha256.h - SHA-256 (FIPS 180-4), for cache keys and source hashes. */
#ifndef LCM_SHA256_H
#define LCM_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct lcm_sha256 {
    uint32_t h[8];
    uint64_t len;
    unsigned char buf[64];
    size_t nbuf;
} lcm_sha256;

void base_sha256_init(lcm_sha256 *c);
void base_sha256_update(lcm_sha256 *c, const void *data, size_t n);
void base_sha256_final(lcm_sha256 *c, unsigned char out[32]);
/* Hex digest of data (65 bytes with the NUL). */
void base_sha256_hex(const void *data, size_t n, char out[65]);
void base_sha256_hex_final(lcm_sha256 *c, char out[65]);

#endif
