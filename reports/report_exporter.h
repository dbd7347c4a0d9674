/*
 * report_exporter.h — the report's exporter section: per exporter its
 * version and power source, its node energy against ground truth, its
 * per-workload energy against the reference model for the top tenants, its
 * invariants and its showback table. The numbers are validator/'s
 * (exporter_report.h); this only renders them through doc.h (escaped there).
 */
#ifndef WC_REPORT_EXPORTER_H
#define WC_REPORT_EXPORTER_H

#include "reports/doc.h"
#include "validator/validation.h"

/* Writes the section, then the CPU-accounting cross-check (report_cpu_share.h)
 * of the reference model and every exporter; a run without exporter data gets
 * one sentence saying so (and the cross-check of the reference model). */
void wc_report_exporters(wc_doc *d, const wc_validation *v);

#endif
