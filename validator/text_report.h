/*
 * text_report.h — the plain-text tables `wattcal validate` prints for
 * people: every figure with its unit, its 95 % interval where it has one,
 * and where it came from (measured / simulated meter, attributed by model M,
 * ground truth or simulated BMC, estimated by a calibration). Untrusted
 * strings (process names, phase labels, BMC text, specs) are printed with
 * control and non-ASCII bytes shown as '?'.
 */
#ifndef WC_TEXT_REPORT_H
#define WC_TEXT_REPORT_H

#include <stdio.h>

#include "validator/validation.h"

/* Prints the whole validation of the run at db_path, ending with the gate's
 * closing line "N passed, N failed" (", K skipped" when some checks could
 * not be evaluated). */
void wc_text_validation(FILE *out, const wc_validation *v, const char *db_path);

/* Copies s for a terminal: bytes outside printable ASCII become '?'. */
const char *wc_term_safe(const char *s, char *buf, size_t cap);

#endif
