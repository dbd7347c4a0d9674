/*
 * wc_text.h — bounded text building for one-line descriptions and messages.
 */
#ifndef WC_TEXT_H
#define WC_TEXT_H

#include <stddef.h>

/* Appends printf text to buf (cap bytes, NUL-terminated) at offset *used and
 * advances *used; stops quietly (truncating) when buf is full. */
void wc_append(char *buf, size_t cap, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
