/* csv_number.h - a number as CSV text: the fewest digits that read back. */
#ifndef LCM_CSV_NUMBER_H
#define LCM_CSV_NUMBER_H

/* The buffer io_csv_format needs. */
#define LCM_CSV_NUMBER_MAX 40

/* x into buf (at least LCM_CSV_NUMBER_MAX bytes, NUL-terminated) as the
 * first of %.15g, %.16g and %.17g that reads back to x (precision 32, for
 * float32 results: %.6g to %.9g, read back as a float, when x is a float;
 * a double among them is written as a double), or nan, inf, -inf; returns
 * its length.  "50.63", not "50.630000000000003".  Pure:
 * threads may format at once. */
int io_csv_format(char *buf, double x, int precision);

/* The same text by trying snprintf and strtod: the definition, kept for
 * the test that compares the two (io_csv_format takes an exact integer
 * path, about 30 times faster, wherever x 10^p fits it). */
int io_csv_format_printf(char *buf, double x, int precision);

#endif
