/*
 * wc_dl.h — a shared library loaded the first time a part needs it, its
 * entry points resolved into a table of function pointers.
 *
 * libcurl and libmicrohttpd bring TLS, Kerberos, LDAP and SSH libraries
 * (about 6 MiB resident once mapped and initialised). Most wattcal runs (a
 * `record` on a RAPL or simulated meter, validate, report) never speak HTTP,
 * so those libraries are not linked: common/wc_http.c loads libcurl and
 * collector/serve/serve_http.c loads libmicrohttpd when a source or the
 * endpoint first needs them. Their headers are still the build's (pkg-config
 * --cflags), and each table takes its prototypes from them (__typeof__), so a
 * call through the table is checked like a direct call.
 */
#ifndef WC_DL_H
#define WC_DL_H

#include <stddef.h>

#include "common/wc_error.h"

/* One entry point to resolve: its symbol name and the byte offset, in the
 * caller's table struct, of the function pointer it fills. */
typedef struct wc_dl_sym {
    const char *name;
    size_t offset;
} wc_dl_sym;

/* Opens soname (dlopen, RTLD_NOW | RTLD_LOCAL; a bare soname is searched as
 * the dynamic linker does) and writes each syms[i]'s address into table at
 * syms[i].offset. The library is never closed: its pointers stay valid for
 * the process. Returns 0, or -ENOENT with err naming the library, or the
 * first missing symbol, dlerror's text and package, what to install (e.g.
 * "Debian package libcurl4"). Not thread-safe: callers load once
 * (pthread_once). */
int wc_dl_load(const char *soname, const char *package, const wc_dl_sym *syms, size_t n,
               void *table, wc_error *err);

#endif
