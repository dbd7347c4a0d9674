/*
 * wc_text.h — bounded text building for one-line descriptions and messages.
 */
#ifndef WC_TEXT_H
#define WC_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Appends printf text to buf (cap bytes, NUL-terminated) at offset *used and
 * advances *used; stops quietly (truncating) when buf is full. */
void wc_append(char *buf, size_t cap, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Copies src into dst (cap bytes), truncating; always NUL-terminates. */
void wc_copy_trunc(char *dst, size_t cap, const char *src);

/* snprintf into a fixed buffer where truncation is intended (bounded
 * messages); always NUL-terminates. */
void wc_textf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Writes text to a terminal stream with control bytes (< 0x20, 0x7f) shown
 * as '?': text may quote files, BMC answers or process names. */
void wc_fputs_safe(const char *text, FILE *out);

/* Length of the valid UTF-8 sequence at s: 1 for ASCII, 2..4 for a
 * well-formed multi-byte character (no overlong form, no UTF-16 surrogate,
 * nothing above U+10FFFF; RFC 3629), 0 when invalid. s must hold a NUL
 * within 4 bytes or the whole sequence. */
size_t wc_utf8_len(const unsigned char *s);

/* Length of the URL authority at a: a DNS name or IPv4 address
 * ([A-Za-z0-9.-]+) or a bracketed IPv6 literal, then an optional :PORT
 * (1..65535); 0 when malformed. The one rule of --truth redfish: and
 * --exporter URLs (RFC 3986 host and port, without userinfo: credentials are
 * refused before). */
size_t wc_url_authority_len(const char *a);

#endif
