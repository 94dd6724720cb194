/* h5_vlen.c - see h5_vlen.h.  The layouts are the HDF5 file format
 * specification's: a variable-length string's reference (the attribute's
 * data) is its length (4 bytes), the address of a global heap collection
 * (8) and the index of its object there (4); a collection is "GCOL",
 * version 1, 3 reserved bytes and its size in bytes (8), then objects, each
 * an index (2), a reference count (2), 4 reserved bytes, its size (8) and
 * its bytes padded to a multiple of 8, until the free space (index 0).
 * Numbers are little-endian; addresses count from the file's base address
 * (the size of its user block). */
#define _POSIX_C_SOURCE 200809L /* fseeko, ftello */
#include "h5_vlen.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REF_SIZE = 16, HEAP_HEADER = 16, OBJECT_HEADER = 16 };
static const char conversion[] = "lcm: a variable-length reference as stored";

static uint64_t little_endian(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = v << 8 | p[i];
    return v;
}

/* A conversion from a variable-length type to an opaque type of its size
 * that leaves the bytes as HDF5 stored them: the reference. */
static herr_t keep_reference(hid_t src, hid_t dst, H5T_cdata_t *cd, size_t n, size_t stride, size_t bkg_stride,
                             void *buf, void *bkg, hid_t dxpl)
{
    (void)n, (void)stride, (void)bkg_stride, (void)buf, (void)bkg, (void)dxpl;
    if (cd->command != H5T_CONV_INIT) return 0;
    cd->need_bkg = H5T_BKG_NO;
    return H5Tget_size(src) == REF_SIZE && H5Tget_size(dst) == REF_SIZE ? 0 : -1;
}

/* The reference of the scalar variable-length string attribute a. */
static int reference(hid_t a, unsigned char *ref)
{
    hid_t t = H5Aget_type(a), space = H5Aget_space(a);
    int ok = H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0 &&
             H5Sget_simple_extent_type(space) == H5S_SCALAR;
    H5Tclose(t), H5Sclose(space);
    if (!ok) return 1;
    hid_t vlen = H5Tvlen_create(H5T_NATIVE_UCHAR), raw = H5Tcreate(H5T_OPAQUE, REF_SIZE);
    H5Tset_tag(raw, conversion);
    /* HDF5 matches the conversion by the classes (variable-length to opaque,
     * which it has none of): registered for this one read */
    int bad = H5Tregister(H5T_PERS_SOFT, conversion, vlen, raw, keep_reference) < 0 || H5Aread(a, raw, ref) < 0;
    H5Tunregister(H5T_PERS_SOFT, conversion, vlen, raw, keep_reference);
    H5Tclose(raw), H5Tclose(vlen);
    return bad;
}

/* Object `index` of the collection at `at` of file f, which must be `size`
 * bytes, into out. */
static int heap_object(FILE *f, uint64_t at, uint64_t index, uint64_t size, char *out)
{
    unsigned char head[HEAP_HEADER];
    off_t end;
    if (fseeko(f, 0, SEEK_END) != 0 || (end = ftello(f)) < HEAP_HEADER || at > (uint64_t)end - HEAP_HEADER ||
        fseeko(f, (off_t)at, SEEK_SET) != 0 || fread(head, 1, HEAP_HEADER, f) != HEAP_HEADER ||
        memcmp(head, "GCOL", 4) != 0 || head[4] != 1)
        return 1;
    uint64_t total = little_endian(head + 8, 8); /* the collection, its header included */
    if (total < HEAP_HEADER || total > (uint64_t)end - at) return 1;
    unsigned char *heap = malloc(total);
    int found = 0;
    if (heap && fseeko(f, (off_t)at, SEEK_SET) == 0 && fread(heap, 1, total, f) == total)
        for (uint64_t p = HEAP_HEADER; p <= total - OBJECT_HEADER;) {
            uint64_t id = little_endian(heap + p, 2), bytes = little_endian(heap + p + 8, 8);
            if (id == 0 || bytes > total - p - OBJECT_HEADER) break; /* the free space, or damaged */
            if (id == index) {
                found = bytes == size;
                if (found) memcpy(out, heap + p + OBJECT_HEADER, size);
                break;
            }
            p += OBJECT_HEADER + ((bytes + 7) & ~(uint64_t)7);
        }
    free(heap);
    return !found;
}

int io_h5_vlen_attr_string(const char *path, hid_t a, char *out, size_t len)
{
    unsigned char ref[REF_SIZE];
    out[0] = 0;
    if (reference(a, ref)) return 1;
    uint64_t size = little_endian(ref, 4), addr = little_endian(ref + 4, 8), index = little_endian(ref + 12, 4);
    if (size >= len) return 1;
    if (size == 0) return 0;
    hsize_t base = 0;
    hid_t file = H5Iget_file_id(a), fcpl = file < 0 ? -1 : H5Fget_create_plist(file);
    int bad = fcpl < 0 || H5Pget_userblock(fcpl, &base) < 0 || addr > UINT64_MAX - base;
    if (fcpl >= 0) H5Pclose(fcpl);
    if (file >= 0) H5Fclose(file);
    FILE *f = bad ? NULL : fopen(path, "rb");
    bad = !f || heap_object(f, base + addr, index, size, out);
    if (f) fclose(f);
    out[bad ? 0 : size] = 0;
    return bad || strlen(out) != size; /* a NUL inside: not a string */
}
