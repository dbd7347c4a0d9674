/*
 * probe_print.h — how `wattcal probe` shows what collector/probe.h found:
 * a table for people, where every untrusted string (sensor labels, DMI text,
 * BMC messages, paths) has control and non-ASCII bytes replaced by '?', or
 * JSON (schema wattcal-probe/1, cJSON-escaped, invalid UTF-8 replaced by
 * U+FFFD). The library returns the data; the CLI prints it.
 */
#ifndef WC_PROBE_PRINT_H
#define WC_PROBE_PRINT_H

#include <stddef.h>
#include <stdio.h>

#include "collector/probe.h"

/* Writes the human-readable report to out: the sources found, the RAPL zones
 * per socket, the hwmon sensors, each --truth source, then the verdict. */
void wc_probe_print(const wc_probe *p, FILE *out);

/* The JSON report (schema wattcal-probe/1, fields as in README), malloc'd,
 * NUL-terminated; NULL when out of memory. Caller frees. */
char *wc_probe_json(const wc_probe *p);

/* Copies an untrusted string for a terminal into buf (cap bytes): control
 * bytes, DEL and non-ASCII bytes become '?'. Returns buf. */
const char *wc_probe_term_safe(const char *s, char *buf, size_t cap);

#endif
