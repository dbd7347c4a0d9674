/*
 * strpool.h — interned, reference-counted strings for the process scanner.
 *
 * A process's exe path, cgroup path and VM labels are read once at its birth
 * (proc_scan.c) and kept for its whole life; most processes share them (one
 * binary, one service's cgroup, "" for every non-VM), so the scanner keeps
 * one copy of each distinct string and the identity points at it (issue 15:
 * `wattcal record` within 16 MiB at 5,000 processes). Not thread-safe: the
 * scanner's thread is the only user.
 */
#ifndef WC_STRPOOL_H
#define WC_STRPOOL_H

#include <stddef.h>

typedef struct wc_strpool wc_strpool;

/* An empty pool. NULL when out of memory. */
wc_strpool *wc_strpool_new(void);

/* The pooled copy of [s, s+len) (need not be NUL-terminated; cut at its
 * first NUL), one reference more: equal strings give one pointer. "" is a
 * static string, never counted. NULL when out of memory (nothing taken). */
const char *wc_strpool_get(wc_strpool *p, const char *s, size_t len);

/* Drops one reference of a string wc_strpool_get returned (freed at zero);
 * NULL and "" are ignored. */
void wc_strpool_put(wc_strpool *p, const char *s);

/* Distinct strings held now (tests, diagnostics). */
size_t wc_strpool_count(const wc_strpool *p);

/* Frees the pool and every string still in it. NULL is ignored. */
void wc_strpool_free(wc_strpool *p);

#endif
