/*
 * gate_notes.h — what `wattcal validate` says beside its gate line, shared by
 * the terminal (text_report.c) and the JSON summary (summary_json.c) so the
 * two never disagree: the provenance appended to "gate: PASS" when the gated
 * node source or the ground truth is SIMULATED (runbook.md: `--meter sim
 * --truth sim` validates nothing), and the note that a run without a wall
 * calibration is gated on the raw meter (RAPL misses PSU loss and platform
 * power). Found by the new-user acceptance run (runbook.md section 1).
 */
#ifndef WC_GATE_NOTES_H
#define WC_GATE_NOTES_H

#include <stddef.h>

#include "validator/validation.h"

/* The provenance appended to the gate line, e.g. "SIMULATED meter and truth:
 * a rehearsal, validates nothing"; "" when neither the gated source (or the
 * meter it derives from) nor the truth is simulated, or there is no gate. */
const char *wc_gate_provenance(const wc_validation *v);

/* The note beside the gate when the node checks read the raw meter because
 * the run holds no wall calibration (none stored: never calibrated, or every
 * fit refused) while a ground truth delivered readings and a gate was asked for:
 * into buf (cap bytes). Returns 1 when the note applies, 0 when not (buf
 * then ""). */
int wc_gate_uncalibrated_note(const wc_validation *v, char *buf, size_t cap);

#endif
