# make install PREFIX=… DESTDIR=… puts the binary, the man page and the docs
# under the staging root, and the installed binary runs. The docs keep the
# README's layout (every relative link of the installed README resolves), the
# man page's FILES section names PREFIX's paths (and they exist), and the bash
# completion offers every command and every option each command's --help lists.
# install-deps.sh's demo set holds what the demo needs and not the tests' tools.
. tests/integration/lib/common.sh
make -s install PREFIX=/opt/wc DESTDIR="$T/stage" >"$T/log" 2>&1 || { cat "$T/log"; fail "make install"; }
R="$T/stage/opt/wc"
for f in bin/wattcal share/man/man1/wattcal.1 share/doc/wattcal/README.md share/doc/wattcal/runbook.md \
         share/doc/wattcal/docs/schema.md share/doc/wattcal/docs/scenarios.md \
         share/bash-completion/completions/wattcal; do
    [ -f "$R/$f" ] || fail "missing $f"
done
"$R/bin/wattcal" version | grep -q '^wattcal ' || fail "installed binary does not run"

# the README's relative links resolve in the installed doc folder
grep -o '](\([^)#:]*\))' "$R/share/doc/wattcal/README.md" | sed 's/^](//; s/)$//' | sort -u >"$T/links"
[ -s "$T/links" ] || fail "the README links no doc"
while read -r l; do
    [ -e "$R/share/doc/wattcal/$l" ] || fail "installed README links $l, which is not installed"
done <"$T/links"

# FILES follows PREFIX: every path it names is under /opt/wc and was installed
sed -n '/^\.SH FILES/,/^\.SH/p' "$R/share/man/man1/wattcal.1" | grep -o '/[a-z][^ ,]*' | sort -u >"$T/files"
[ -s "$T/files" ] || fail "the man page names no file"
! grep -v '^/opt/wc/' "$T/files" || fail "FILES names paths outside PREFIX"
while read -r p; do [ -f "$T/stage$p" ] || fail "FILES names $p, not installed"; done <"$T/files"

# bash completion: commands, then each command's options as its --help lists them
command -v bash >/dev/null || skip "no bash to try the completion with"
complete_words() { # words... -> the candidates of the last word
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _wattcal; printf "%s\n" "${COMPREPLY[@]}"' \
        sh "$R/share/bash-completion/completions/wattcal" "$@"
}
complete_words wattcal re | sort >"$T/c"
[ "$(tr '\n' ' ' <"$T/c")" = "record report " ] || fail "commands for 're': $(cat "$T/c")"
cmds=$("$BIN" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
for c in $cmds; do
    "$BIN" $c --help 2>/dev/null | sed -n 's/^  \(--[a-z][a-z-]*\).*/\1/p' | sort -u >"$T/want"
    complete_words wattcal $c -- | sort -u >"$T/got"
    comm -23 "$T/want" "$T/got" >"$T/missing"
    [ ! -s "$T/missing" ] || fail "completion of $c lacks $(tr '\n' ' ' <"$T/missing")"
done
complete_words wattcal import --truth-i | grep -qx -- --truth-into || fail "import --truth-i does not complete"

# the demo's package set: what the demo needs, not the tests' browser, test framework or servers
demo=$(sh scripts/install-deps.sh demo --list) || fail "install-deps.sh demo --list"
all=$(sh scripts/install-deps.sh test --list) || fail "install-deps.sh test --list"
for p in chromium libcriterion-dev prometheus stress-ng ipmitool openipmi; do
    case " $demo " in *" $p "*) fail "the demo set holds $p" ;; esac
done
for p in gnuplot-nox libsqlite3-dev libgsl-dev; do
    case " $demo " in *" $p "*) ;; *) fail "the demo set lacks $p" ;; esac
done
for p in $demo; do case " $all " in *" $p "*) ;; *) fail "$p is in the demo set, not the test set" ;; esac; done
grep -q '^demo: demo-deps ' Makefile || fail "make demo does not use the demo set"
exit 0
