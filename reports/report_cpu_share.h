/*
 * report_cpu_share.h — the report's CPU-accounting cross-check: per energy
 * source (the reference model, each exporter) each pod's share of the node's
 * active energy against its share of the node's busy CPU as the kernel
 * accounts it, largest disagreement first. The numbers are
 * validator/cpu_share.c's; this only renders them through doc.h, which
 * escapes every string (pod names and namespaces come from the exporter's
 * labels: untrusted).
 */
#ifndef WC_REPORT_CPU_SHARE_H
#define WC_REPORT_CPU_SHARE_H

#include "reports/doc.h"
#include "validator/cpu_share.h"

/* Writes the section (a level-3 heading); a run without pod cgroup
 * accounting gets one sentence saying so. */
void wc_report_cpu_share(wc_doc *d, const wc_cpu_share_report *r);

#endif
