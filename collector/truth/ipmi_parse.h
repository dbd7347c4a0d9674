/*
 * ipmi_parse.h — pure parsers for what a BMC answers through ipmitool (and
 * the FreeIPMI / ipmiutil variants a user may feed): `dcmi power reading`,
 * SDR/sensor tables in Watts, timestamps, and the error lines that tell
 * "this BMC has no DCMI" apart from "the BMC did not answer".
 *
 * No I/O here: collector/truth/truth_ipmi.c runs ipmitool and hands the captured
 * stdout+stderr to these functions. The text comes from a BMC and is
 * untrusted: it need not be NUL-terminated (every function takes text+len and
 * never reads past len), it is only ever copied bounded, and it is never used
 * as a format string; non-printable bytes are shown as '?' in messages.
 *
 * Rules every parser applies (see truth.h): an unavailable reading is
 * WC_TRUTH_UNAVAILABLE with its reason, NEVER ok with 0 W. 0 W, 65535 W,
 * negative values, "No Reading", "na", `ns`, "disabled" and a deactivated
 * DCMI power reading are all unavailable.
 */
#ifndef WC_IPMI_PARSE_H
#define WC_IPMI_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "collector/truth/truth.h"
#include "common/wc_error.h"

/* Readings at or above this are a BMC's "no reading" sentinel (0xFFFF W). */
#define WC_IPMI_SENTINEL_WATTS 65535.0
/* Plausibility ceiling, 100 kW per node. One IPMI reading cannot reach it
 * (anything >= WC_IPMI_SENTINEL_WATTS is already unavailable), but a sum of
 * PSU inputs can: above it the sum is UNAVAILABLE ("implausible reading N W"). */
#define WC_IPMI_MAX_NODE_WATTS 100000.0

/* The DCMI "sampling period" is the window of the BMC's min/max/avg
 * statistics. When it is at most this long (ipmiutil's "1000 ms", a 1 s
 * period) it is also taken as the averaging window of the reading
 * (window_s, window_known = 1); a longer one (days: time since the
 * statistics were reset, or the 0xFFFA sentinel) says nothing about the
 * instantaneous value, so window_s stays 0 (unknown) and the path notes
 * "stats window N s". Either way the period is stored as the statistics'
 * window (stats_window_s), except the 0xFFFA sentinel below. */
#define WC_IPMI_DCMI_MAX_WINDOW_S 3600.0
/* A "sampling period" of 0xFFFA s states no window: stats_window_s stays 0. */
#define WC_IPMI_DCMI_PERIOD_SENTINEL_S 65530.0

/* Parses `ipmitool dcmi power reading` output (also FreeIPMI
 * `ipmi-dcmi --get-system-power-statistics` and `ipmiutil dcmi power`, any
 * indentation, unit case and the ipmitool bug that glues "Sampling period:"
 * onto the timestamp line). Sets, in *out: watts (the instantaneous/current
 * reading), min/avg/max_watts, window_s/window_known and stats_window_s (see
 * WC_IPMI_DCMI_MAX_WINDOW_S), device_ts_ns (0 when the BMC clock is unset:
 * epoch 0, "Pre-Init", before 1987), path ("dcmi:instantaneous", with
 * "(stats window N s)" / "(device time unset)" notes), status and error.
 * Poll times are left alone.
 *
 * Returns
 *   0         the BMC answered: status WC_TRUTH_OK, or WC_TRUTH_UNAVAILABLE
 *             with the reason in out->error (state deactivated / "not active"
 *             / "Not Available", 0 W, 65535 W). A deactivated reading with a
 *             plausible value (OpenBMC reports real watts with this state) is
 *             UNAVAILABLE: the values stay in watts/min/max/avg for the
 *             record, the reason names them, and the caller tries the SDR;
 *   -ENODATA  the output says the BMC does not support or refused DCMI power
 *             reading ("Invalid command (c1)", "DCMI request failed",
 *             "A valid DCMI command was not returned", a bad completion
 *             code): the caller should fall back to the SDR;
 *   -EIO      session/transport failure (the BMC did not answer, no local
 *             device, interface not loaded);
 *   -EACCES   authentication or privilege refused;
 *   -EPROTO   truncated output (a field without its value, the state line
 *             missing) or an unrecognised format.
 * On a negative return out->status is WC_TRUTH_ERROR and both err and
 * out->error say what happened, quoting the first BMC line bounded. */
int wc_ipmi_parse_dcmi(const char *text, size_t len, wc_truth_sample *out, wc_error *err);

/* Parses sensor tables for a node power reading: `ipmitool sdr [elist|list]
 * [full]`, `ipmitool sdr type ...`, `ipmitool sensor` (10 columns) and
 * FreeIPMI `ipmi-sensors` (ID | Name | Type | Reading | Units | Event).
 * Lines without the '|' layout (error lines interleaved by ipmitool) are
 * skipped; discrete sensors ("0x00") are never read as watts.
 *
 * Choice: a system-level sensor first ("Pwr Consumption", "System Level",
 * "Power Meter", "Total Power", "Sys Power", "Avg Power"...; path
 * "sdr:<name>"), else the sum of every power-supply input sensor in Watts
 * ("PS1 Power In", "PS1 Input Power", "PSU1 PIN", "Power Supply 1"; output
 * sensors are excluded; path "sdr:sum(<names>)"). Component sensors (CPU,
 * DIMM...) are never used. min/max/avg stay NAN; window 0 (unknown).
 *
 * Returns 0 with status OK, or UNAVAILABLE with the reason (the chosen
 * sensor says "No Reading"/ns/na/disabled, reads 0 W or 65535 W, a PSU of
 * the sum cannot be read, or the sum is above WC_IPMI_MAX_NODE_WATTS); -ENODATA when no system or PSU power sensor is in
 * the output (err lists any component Watts sensors seen); -EIO / -EACCES /
 * -EPROTO as for wc_ipmi_parse_dcmi when the output is an error or not a
 * sensor table. */
int wc_ipmi_parse_sdr(const char *text, size_t len, wc_truth_sample *out, wc_error *err);

/* Classifies ipmitool/FreeIPMI error output that carries no reading:
 * -ENODATA (the command is not supported/refused by the BMC: completion codes
 * c1, cb, "DCMI request failed", "not supported"...), -EACCES (RAKP /
 * unauthorized name / password / insufficient privilege), -EIO (no session,
 * no device, interface not loaded, no response) or -EPROTO (nothing
 * recognised, including empty output). err (may be NULL) gets
 * "<what>: <reason>: <first line>". `what` names the command, e.g.
 * "ipmitool dcmi power reading". */
int wc_ipmi_classify_failure(const char *text, size_t len, const char *what, wc_error *err);

/* Parses a BMC timestamp as printed by ipmitool (ctime "Wed Feb 15 12:49:51
 * 2017", 1.8.19+ "10/12/23 13:29:17 CEST"), FreeIPMI ("11/03/2023 -
 * 08:36:29") or ipmiutil, into ns since the epoch. Times carry no zone in
 * most of these formats: they are read as UTC (truth_ipmi.c runs ipmitool
 * with TZ=UTC so that holds); a trailing zone abbreviation (UTC, GMT, CET,
 * CEST, EST, PDT...) or numeric offset (+0200) is applied. Returns 0 with
 * *out_ns > 0; 0 with *out_ns = 0 when the BMC clock is unset (epoch 0,
 * "Unspecified", "Pre-Init", anything before 1987, i.e. the IPMI pre-init
 * range < 0x20000000 s); -EINVAL when the text is not a timestamp or the zone
 * is unknown. */
int wc_ipmi_parse_time_ns(const char *text, size_t len, int64_t *out_ns);

/* Copies the first non-blank line of text into buf (cap bytes, always
 * NUL-terminated), trimmed, non-printable bytes replaced by '?', truncated to
 * fit. Returns the number of bytes written (0 when text has no line). */
size_t wc_ipmi_first_line(const char *text, size_t len, char *buf, size_t cap);

#endif
