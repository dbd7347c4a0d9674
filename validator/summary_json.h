/*
 * summary_json.h — the validation as one JSON document (schema
 * "wattcal-validate/2", described by docs/validate.schema.json): every figure `wattcal validate` computes, its 95 %
 * interval where it has one ({"est", "lo", "hi"}), and its provenance
 * (measured / simulated meter, exporter model, ground truth or simulated BMC,
 * estimated by a calibration). Unknown numbers are null, never 0. Built with
 * cJSON; strings from the run are JSON-escaped by cJSON.
 */
#ifndef WC_SUMMARY_JSON_H
#define WC_SUMMARY_JSON_H

#include "common/wc_error.h"
#include "validator/validation.h"

/* The document's "schema" tag; bumped whenever its shape changes (/2: the
 * gate's outcome and reason, NO VERDICT and INSUFFICIENT checks, signed
 * figures, the per-pod showback). */
#define WC_VALIDATE_SCHEMA "wattcal-validate/2"

/* Writes the document to path (a symlink, FIFO or device is written
 * through). Returns 0 or -errno / -ENOMEM / -EIO (e.g. disk full) with err
 * naming the file. */
int wc_summary_json_write(const char *path, const wc_validation *v, const char *db_path,
                          wc_error *err);

/* The document as a malloc'd string (for tests); NULL on allocation failure. */
char *wc_summary_json_string(const wc_validation *v, const char *db_path);

#endif
