/*
 * wc_sorted.c — binary search in sorted int64 arrays (wc_sorted.h).
 */
#include "common/wc_sorted.h"

long wc_sorted_find_i64(const int64_t *a, size_t n, int64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && a[lo] == key ? (long)lo : -1;
}
