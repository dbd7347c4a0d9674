# Each option is documented once, alike, in --help (generated from the
# command's option table, cli/cli_parse.h), the man page and the README:
# every long option a command's --help lists appears in both, in that
# command's own section (README "### `wattcal CMD ...", man ".SH CMD
# OPTIONS"), with the same argument where a table row or .B line names it;
# and every option those sections document is one the command has.
. tests/integration/lib/common.sh

# The README section of command $1: its "### `wattcal $1 " heading to the next heading.
readme_section() {
    awk -v h="### \`wattcal $1 " 'index($0, h) == 1 { on = 1; next } /^##/ { on = 0 } on' README.md
}
# The man page section of command $1: ".SH $1 OPTIONS" (or ".SH $1") to the next .SH.
man_section() {
    up=$(printf '%s' "$1" | tr a-z A-Z)
    awk -v a=".SH $up OPTIONS" -v b=".SH $up" '$0 == a || $0 == b { on = 1; next }
        /^\.SH/ { on = 0 } on' docs/wattcal.1
}
man_escape() { printf '%s' "$1" | sed 's/-/\\-/g'; }

# Every command `wattcal --help` lists (cli/main.c's table), but version.
cmds=$("$BIN" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }' |
    grep -v '^version$')
[ -n "$cmds" ] || fail "wattcal --help lists no command"
for cmd in $cmds; do
    "$BIN" $cmd --help >"$T/help" || fail "$cmd --help exited $?"
    readme_section $cmd >"$T/readme"
    man_section $cmd >"$T/man"
    [ -s "$T/readme" ] || fail "README has no section for $cmd"
    [ -s "$T/man" ] || fail "man page has no section for $cmd"
    # "name arg" per option line of --help (arg empty for a switch)
    sed -n 's/^  --\([a-z][a-z-]*\)\( \([^ ]*\)\)\{0,1\}.*/\1 \3/p' "$T/help" >"$T/opts"
    [ -s "$T/opts" ] || fail "$cmd --help lists no option"
    while read -r name arg; do
        grep -qF -- "\`--$name" README.md || fail "README lacks $cmd --$name"
        grep -qF -- "\`--$name" "$T/readme" || fail "README's $cmd section lacks --$name"
        man_opt=$(man_escape "--$name")
        grep -qF -- "$man_opt" docs/wattcal.1 || fail "man page lacks $cmd --$name"
        grep -qF -- "$man_opt" "$T/man" || fail "man page's $cmd section lacks --$name"
        md_arg=$(printf '%s' "$arg" | sed 's/|/\\|/g')
        want="| \`--$name${arg:+ $md_arg}\`"
        grep -E -- "^\| \`--$name[ \`]" "$T/readme" | while IFS= read -r row; do
            case "$row" in "$want"*) ;; *) fail "README: $cmd --$name ${arg:-(no argument)}, not: $row" ;; esac
        done || exit 1
        want=".B $man_opt${arg:+ $arg}"
        grep -E -- "^\.B $(printf '%s' "$man_opt" | sed 's/\\/\\\\/g')( |,|$)" "$T/man" |
            while IFS= read -r line; do
                case "$line" in "$want"*) ;; *) fail "man page: $cmd --$name ${arg:-(no argument)}, not: $line" ;; esac
            done || exit 1
    done <"$T/opts"
    # every option the sections document is one of the command's
    cut -d' ' -f1 "$T/opts" >"$T/names"
    { sed -n 's/^| `--\([a-z][a-z-]*\).*/\1/p' "$T/readme"
      grep '^\.B ' "$T/man" | grep -o '\\-\\-[a-z][a-z\\-]*' | sed 's/\\-/-/g; s/^--//'
    } | sort -u | while read -r name; do
        grep -qx -- "$name" "$T/names" || fail "$cmd documents --$name, which its --help does not list"
    done || exit 1
done
exit 0
