/*
 * report_io.c — files of a report directory (report_io.h).
 */
#include "reports/report_io.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int wc_outfile_open(wc_outfile *o, const char *dir, const char *name, wc_error *err)
{
    memset(o, 0, sizeof *o);
    if ((size_t)snprintf(o->path, sizeof o->path, "%s/%s", dir, name) >= sizeof o->path)
        return wc_error_set(err, -ENAMETOOLONG, "report: path too long: %.200s/%s", dir, name);
    int fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return wc_error_set(err, -errno, "report: cannot write %.300s: %s", o->path, strerror(errno));
    o->f = fdopen(fd, "w");
    if (!o->f) {
        int e = errno;
        close(fd);
        return wc_error_set(err, -e, "report: cannot write %.300s: %s", o->path, strerror(e));
    }
    return 0;
}

int wc_outfile_close(wc_outfile *o, wc_error *err)
{
    if (!o->f)
        return 0;
    int bad = fflush(o->f) != 0 || ferror(o->f);
    int e = bad ? errno : 0;
    if (fclose(o->f) && !bad)
        bad = 1, e = errno;
    o->f = NULL;
    if (bad)
        return wc_error_set(err, -(e ? e : EIO), "report: writing %.300s failed: %s", o->path,
                            strerror(e ? e : EIO));
    return 0;
}

int wc_outfile_copy(const char *src_dir, const char *dir, const char *name, wc_error *err)
{
    char src[4200];
    if ((size_t)snprintf(src, sizeof src, "%s/%s", src_dir, name) >= sizeof src)
        return wc_error_set(err, -ENAMETOOLONG, "report: path too long: %.200s/%s", src_dir, name);
    int in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0)
        return wc_error_set(err, -errno, "report: cannot read %.300s: %s", src, strerror(errno));
    wc_outfile o;
    int rc = wc_outfile_open(&o, dir, name, err);
    char buf[65536];
    while (!rc) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            rc = wc_error_set(err, -errno, "report: reading %.300s: %s", src, strerror(errno));
        if (n <= 0)
            break;
        if (fwrite(buf, 1, (size_t)n, o.f) != (size_t)n)
            break; /* reported by wc_outfile_close */
    }
    close(in);
    int rc2 = wc_outfile_close(&o, rc ? NULL : err);
    return rc ? rc : rc2;
}

int wc_outdir_ensure(const char *dir, wc_error *err)
{
    struct stat sb;
    if (!stat(dir, &sb)) {
        if (!S_ISDIR(sb.st_mode))
            return wc_error_set(err, -ENOTDIR, "report: --out %.300s exists and is not a directory", dir);
        return 0;
    }
    if (mkdir(dir, 0755) && errno != EEXIST)
        return wc_error_set(err, -errno, "report: cannot create --out %.300s: %s", dir, strerror(errno));
    return 0;
}
