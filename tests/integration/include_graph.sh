# The include graph of the product sources (cli, collector, validator,
# workloads, reports, common; not tests, not bench) has the shape
# collector/README.md draws: every `#include "..."` points down a layer, the
# private headers stay in their folder, no file includes itself back through
# others, and SQLite is seen only inside collector/store/. It reads the
# sources only (no build, no WATTCAL_BIN). Exit 0 when every rule holds,
# 1 with one FAIL line per violation: a violation is reported to the lead,
# who decides; this test never changes the code.
#
# Layers (a room's number; the why of each direction is in collector/README.md):
#    0  common/                 helpers with no wattcal knowledge
#    1  collector/procfs/       /proc parsers
#    2  collector/meter/        meters; the simulated node reads /proc (procfs)
#    3  collector/truth/        ground truth; a sample is a meter reading
#    3  collector/exporter/     the exporter's own numbers (exposition, Kepler names)
#    3  collector/prom/         the Prometheus HTTP API client
#    4  collector/model/        attribution over procfs ticks and meter counters
#    5  collector/store/        the run database: stores all of the above
#    6  collector/import/       other tools' runs, written through the store
#    7  collector/ (top)        recorder.c, probe.c: the wiring
#    8  validator/, workloads/  analysis of a stored run; scenarios run beside
#                               the recorder (neither includes the other)
#    9  reports/                a validation as HTML and Markdown
#   10  cli/                    the commands
#
# Rules:
#   layer    a file includes only files of its own room or of a LOWER layer
#            (two rooms of one layer do not include each other);
#   private  a *_internal.h, and collector/store/store_iter.h, is included
#            only from its own folder;
#   cycle    no file reaches itself through its includes;
#   sqlite   the string sqlite3 appears in no product file outside
#            collector/store/;
#   resolve  every quoted include names a product file (by the including
#            file's folder, then the repository root, as cc -I. finds it),
#            and every product file lies in a room with a layer (a new room
#            gets its number here and in collector/README.md).
set -u
cd "$(dirname "$0")/../.." || exit 1

files=$(find cli collector validator workloads reports common -type f \
            \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)
[ -n "$files" ] || { echo "FAIL: no product sources found"; exit 1; }

status=0

# sqlite: a plain text search (comments included: the store is the one place
# that talks about SQLite's API).
for f in $(grep -l 'sqlite3' $files | grep -v '^collector/store/'); do
    echo "FAIL (sqlite): $f mentions sqlite3 outside collector/store/"
    status=1
done

# layer, private, cycle, resolve: one awk pass over every include line.
# shellcheck disable=SC2086
printf '%s\n' $files | awk '
function room(p,   a, n) {
    n = split(p, a, "/")
    if (a[1] == "collector")
        return n > 2 ? "collector/" a[2] : "collector"
    return a[1]
}
function dir(p) { sub(/\/[^\/]*$/, "", p); return p }
function base(p) { sub(/^.*\//, "", p); return p }
# "a/./b/../c" -> "a/c"; "" when it climbs above the root.
function normal(p,   a, n, i, out, k, s) {
    n = split(p, a, "/"); k = 0
    for (i = 1; i <= n; i++) {
        if (a[i] == "" || a[i] == ".") continue
        if (a[i] == "..") { if (k == 0) return ""; k--; continue }
        out[++k] = a[i]
    }
    s = out[1]
    for (i = 2; i <= k; i++) s = s "/" out[i]
    return s
}
function private(t) { return t ~ /_internal\.h$/ || t == "collector/store/store_iter.h" }
function fail(rule, msg) { print "FAIL (" rule "): " msg; bad = 1 }
function dfs(u,   list, n, i, v) {
    color[u] = 1; stack[++sp] = u
    n = split(adj[u], list, " ")
    for (i = 1; i <= n; i++) {
        v = list[i]
        if (color[v] == 1) cycle(v)
        else if (color[v] == 0) dfs(v)
    }
    sp--; color[u] = 2
}
function cycle(v,   k, s) {
    for (k = sp; k > 1 && stack[k] != v; k--) ;
    s = stack[k]
    for (k++; k <= sp; k++) s = s " -> " stack[k]
    fail("cycle", s " -> " v)
}
BEGIN {
    L["common"] = 0; L["collector/procfs"] = 1; L["collector/meter"] = 2
    L["collector/truth"] = 3; L["collector/exporter"] = 3; L["collector/prom"] = 3
    L["collector/model"] = 4; L["collector/store"] = 5
    L["collector/import"] = 6; L["collector"] = 7; L["validator"] = 8
    L["workloads"] = 8; L["reports"] = 9; L["cli"] = 10
}
{ is[$0] = 1; order[++nfiles] = $0 }
END {
    for (i = 1; i <= nfiles; i++) {
        f = order[i]
        if (!(room(f) in L))
            fail("resolve", f " lies in " room(f) "/, which has no layer")
    }
    for (i = 1; i <= nfiles; i++) {
        f = order[i]; line = 0
        while ((getline text < f) > 0) {
            line++
            if (text !~ /^[ \t]*#[ \t]*include[ \t]*"/) continue
            sub(/^[ \t]*#[ \t]*include[ \t]*"/, "", text)
            if (index(text, "\"") == 0) { fail("resolve", f ":" line ": unterminated include"); continue }
            inc = substr(text, 1, index(text, "\"") - 1)
            t = normal(dir(f) "/" inc)
            if (!(t in is)) t = normal(inc)
            if (!(t in is)) {
                fail("resolve", f ":" line ": \"" inc "\" is not a product source file")
                continue
            }
            nedges++
            adj[f] = adj[f] " " t
            rf = room(f); rt = room(t)
            if (rf != rt && (rf in L) && (rt in L) && L[rt] >= L[rf])
                fail("layer", f ":" line " includes " t ": " rt "/ (layer " L[rt] \
                     ") is not below " rf "/ (layer " L[rf] ")")
            if (private(t) && dir(t) != dir(f))
                fail("private", f ":" line " includes " t ", private to " dir(t) "/")
        }
        close(f)
    }
    for (i = 1; i <= nfiles; i++)
        if (color[order[i]] == 0) dfs(order[i])
    if (!bad)
        print "include graph: " nfiles " files, " nedges " includes: layers respected, " \
              "private headers private, no cycle"
    exit bad
}' || status=1

if [ "$status" -eq 0 ]; then
    echo "sqlite3 appears only in collector/store/"
else
    echo "include graph: rules broken (listed above); the layers and rules are in" \
         "collector/README.md and at the top of $0: report to the lead"
fi
exit "$status"
