/*
 * test_escape.c — untrusted strings into the report formats
 * (reports/escape.h): HTML entities, Markdown's own characters, the visible
 * form of control and invalid bytes, the cut at a character boundary, and
 * the gnuplot hex form decoding back to the same bytes (decoded here as the
 * script's dec() does, and by gnuplot itself when it is installed).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/escape.h"
#include "reports/gnuplot.h"
#include "tests/unit/support/test_support.h"

/* Runs an escape function into a string (caller frees). */
static char *run(void (*fn)(FILE *, const char *), const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    fn(f, s);
    fclose(f);
    return buf;
}

static const char HOSTILE[] = "<script>`id`$(id)\"q'\nz&";

Test(escape, html_entities_and_visible_controls)
{
    char *s = run(wc_html_escape, HOSTILE);
    cr_assert_str_eq(s, "&lt;script&gt;`id`$(id)&quot;q&#39;\\nz&amp;");
    free(s);
    s = run(wc_html_escape, "caf\xc3\xa9 \x1b[31m \xff");
    cr_assert_str_eq(s, "caf\xc3\xa9 \\x1B[31m \\xFF", "got %s", s);
    free(s);
    s = run(wc_html_escape, NULL);
    cr_assert_str_eq(s, "");
    free(s);
}

Test(escape, markdown_escapes_its_own_characters)
{
    char *s = run(wc_md_escape, HOSTILE);
    cr_assert_str_eq(s, "&lt;script&gt;\\`id\\`$(id)\"q'\\\\nz&amp;", "got %s", s);
    free(s);
    s = run(wc_md_escape, "a|b *c* _d_ [e](f) #g !h ~i~ \\");
    cr_assert_str_eq(s, "a\\|b \\*c\\* \\_d\\_ \\[e\\](f) #g !h \\~i\\~ \\\\", "got %s", s);
    free(s);
    /* block syntax only matters where a line starts */
    s = run(wc_md_escape_block, "# not a heading - 1. x");
    cr_assert_str_eq(s, "\\# not a heading - 1. x", "got %s", s);
    free(s);
    s = run(wc_md_escape_block, "12. not a list");
    cr_assert_str_eq(s, "12\\. not a list", "got %s", s);
    free(s);
    s = run(wc_md_escape_block, "- x");
    cr_assert_str_eq(s, "\\- x", "got %s", s);
    free(s);
    s = run(wc_md_escape, "45.07% - x");
    cr_assert_str_eq(s, "45.07% - x", "a table cell: got %s", s);
    free(s);
}

Test(escape, data_field_never_breaks_a_line_or_column)
{
    char *s = run(wc_gp_field, "a\tb\nc");
    cr_assert_str_eq(s, "a\\tb\\nc");
    free(s);
    s = run(wc_gp_field, "");
    cr_assert_str_eq(s, "-");
    free(s);
}

Test(escape, visible_form_cuts_at_a_character_boundary)
{
    char buf[64];
    cr_assert_str_eq(wc_visible("abcdef", 10, buf, sizeof buf), "abcdef");
    cr_assert_str_eq(wc_visible("abcdefghijkl", 10, buf, sizeof buf), "abcdefg...");
    /* é is two bytes: never cut in half */
    cr_assert_str_eq(wc_visible("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 7, buf, sizeof buf), "\xc3\xa9\xc3\xa9...");
    cr_assert_str_eq(wc_visible("a\nb", 10, buf, sizeof buf), "a\\nb");
    /* an overlong encoding and a lone continuation byte are not UTF-8 */
    cr_assert_str_eq(wc_visible("\xc0\xaf\x80", 20, buf, sizeof buf), "\\xC0\\xAF\\x80");
    cr_assert_str_eq(wc_visible("abc", 2, buf, sizeof buf), "");
}

/* dec() of the scripts, in C: two hex digits per byte. */
static void decode(const char *hex, char *out)
{
    size_t n = 0;
    for (; hex[0] && hex[1]; hex += 2) {
        unsigned v;
        cr_assert_eq(sscanf(hex, "%2x", &v), 1);
        out[n++] = (char)v;
    }
    out[n] = '\0';
}

Test(escape, gnuplot_string_holds_only_hex_digits)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    wc_gp_string(f, HOSTILE, 100);
    fclose(f);
    cr_assert(!strncmp(buf, "dec(\"", 5) && !strcmp(buf + len - 2, "\")"), "got %s", buf);
    buf[len - 2] = '\0';
    cr_assert_eq(strspn(buf + 5, "0123456789abcdef"), strlen(buf + 5), "non-hex in %s", buf);
    char back[128], want[128];
    decode(buf + 5, back);
    wc_visible(HOSTILE, 100, want, sizeof want);
    cr_assert_str_eq(back, want);
    free(buf);
}

Test(escape, gnuplot_decodes_it_to_the_same_bytes)
{
    if (!wc_gnuplot_available())
        cr_skip_test("gnuplot is not installed");
    char dir[240]; /* under $TMPDIR, removed when the test ends */
    snprintf(dir, sizeof dir, "%s", wc_test_tmpdir());
    char *script = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&script, &len);
    fputs(WC_GP_DECODER, f);
    fputs("set print 'out.txt'\nprint ", f);
    wc_gp_string(f, HOSTILE, 100);
    fputs("\n", f);
    fclose(f);
    wc_error err = {{0}};
    cr_assert_eq(wc_gnuplot_run(dir, script, 30, -1, &err), 0, "%s", err.msg);
    free(script);
    char path[256], got[256] = "", want[128];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    FILE *in = fopen(path, "r");
    cr_assert_not_null(in);
    cr_assert_not_null(fgets(got, sizeof got, in));
    fclose(in);
    got[strcspn(got, "\n")] = '\0';
    wc_visible(HOSTILE, 100, want, sizeof want);
    cr_assert_str_eq(got, want);
    unlink(path);
    snprintf(path, sizeof path, "%s/gnuplot.log", dir);
    unlink(path);
    rmdir(dir);
}
