/*
 * wc_sorted.h — lookups in sorted arrays shared by the store's readers and
 * the validator (tick ids of a time base, work_key ids of a stream).
 */
#ifndef WC_SORTED_H
#define WC_SORTED_H

#include <stddef.h>
#include <stdint.h>

/* Index of key in a[0..n) sorted ascending (the first of equal ones), -1
 * when absent. O(log n). */
long wc_sorted_find_i64(const int64_t *a, size_t n, int64_t key);

#endif
