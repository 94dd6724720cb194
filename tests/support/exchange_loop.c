/* exchange_loop.c - swaps two paths again and again with renameat2
 * (RENAME_EXCHANGE, atomic: each name always exists), for the race of the
 * bad-input catalogue's sandbox_read_file_swapped_folder: a folder a model
 * reads through, swapped for a symbolic link that points out of the
 * model's folder while the model reads.
 *
 *   exchange_loop A B [SECONDS]
 *
 * It stops after SECONDS (default 120), so that a test ended early does not
 * leave it running for long; the test kills it when done. */
#define _GNU_SOURCE /* renameat2 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: exchange_loop A B [SECONDS]\n");
        return 2;
    }
    double seconds = argc == 4 ? atof(argv[3]) : 120;
    time_t end = time(NULL) + (time_t)seconds;
    for (unsigned long n = 0;; ++n) {
        if (renameat2(AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE)) {
            perror("exchange_loop: renameat2");
            return 1;
        }
        if (!(n & 1023) && time(NULL) >= end) return 0;
    }
}
