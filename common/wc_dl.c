/*
 * wc_dl.c — loading a shared library on first use (wc_dl.h): dlopen, then
 * one dlsym per entry of the caller's table. Used for libcurl
 * (common/wc_http.c) and libmicrohttpd (collector/serve/serve_http.c), so a
 * run that never speaks HTTP never maps their TLS dependency tree.
 */
#include "common/wc_dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

int wc_dl_load(const char *soname, const char *package, const wc_dl_sym *syms, size_t n,
               void *table, wc_error *err)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        return wc_error_set(err, -ENOENT, "%s could not be loaded (%s): install %s", soname,
                            why ? why : "no reason given", package);
    }
    for (size_t i = 0; i < n; i++) {
        dlerror();
        void *p = dlsym(h, syms[i].name);
        if (!p) {
            const char *why = dlerror();
            return wc_error_set(err, -ENOENT, "%s has no %s (%s): it is older than the headers "
                                "wattcal was built with; install a newer %s", soname,
                                syms[i].name, why ? why : "symbol is NULL", package);
        }
        /* POSIX: a function's address from dlsym is used through a pointer
         * of the function's own type, written here byte for byte. */
        memcpy((char *)table + syms[i].offset, &p, sizeof p);
    }
    return 0;
}
