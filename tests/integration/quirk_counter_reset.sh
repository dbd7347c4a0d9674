# End to end on a fake powercap tree: the package counter is reset mid-run
# (driver reload). The released exporter's model takes the decrease for one
# wrap and reports a spike of (max_energy_range_uj − prev + cur) ≈ 62 kJ; wattcal's meter reference and the ideal
# model flag the interval instead (kepler-model.md §8 item 9, cases/B01-B03).
. tests/integration/lib/common.sh
Z="$T/sys/class/powercap/intel-rapl:0"
mkdir -p "$Z" "$T/sys/class/powercap/intel-rapl"
echo package-0 >"$Z/name"; echo 1 >"$Z/enabled"; echo 262143328850 >"$Z/max_energy_range_uj"
e=200000000000; echo $e >"$Z/energy_uj"
( i=0; while [ $i -lt 40 ]; do
      i=$((i + 1)); e=$((e + 10000000))            # +10 J every 100 ms = 100 W
      [ $i -eq 15 ] && e=5000000                      # counter reset
      echo $e >"$Z/energy_uj.tmp" && mv "$Z/energy_uj.tmp" "$Z/energy_uj"
      sleep 0.1
  done ) &
writer=$!
"$BIN" record --db "$T/run.db" --sysfs-root "$T/sys" --interval 200ms --duration 3s --quiet \
    2>"$T/err" || { cat "$T/err"; kill $writer; fail "record"; }
wait $writer
[ "$(sql "$T/run.db" 'SELECT provenance FROM run')" = measured ] || fail "provenance"
"$BIN" validate --db "$T/run.db" --model kepler-0.11 >"$T/k" || { cat "$T/k"; fail "validate kepler"; }
"$BIN" validate --db "$T/run.db" --model ideal >"$T/i" || { cat "$T/i"; fail "validate ideal"; }
# columns: zone meter_J node_J ...; wrap is column 4 of the flag table
k_node=$(awk '$1=="package" && NF>=10 {print $3; exit}' "$T/k")
k_meter=$(awk '$1=="package" && NF>=10 {print $2; exit}' "$T/k")
i_node=$(awk '$1=="package" && NF>=10 {print $3; exit}' "$T/i")
k_wrap=$(awk '/^zone +skipped/ {f=1; next} f && $1=="package" {print $4; exit}' "$T/k")
i_unmeas=$(awk '/^zone +skipped/ {f=1; next} f && $1=="package" {print $5; exit}' "$T/i")
echo "kepler node $k_node J, meter $k_meter J, ideal node $i_node J, kepler wraps $k_wrap, ideal unmeas $i_unmeas"
awk -v v="$k_node" 'BEGIN {exit !(v > 60000)}' || fail "kepler-0.11 should show the ~62 kJ spike, got $k_node J"
awk -v v="$k_meter" 'BEGIN {exit !(v > 100 && v < 400)}' || fail "meter reference should be ~300 J, got $k_meter"
awk -v v="$i_node" 'BEGIN {exit !(v > 100 && v < 400)}' || fail "ideal should be ~300 J, got $i_node"
[ "$k_wrap" -ge 1 ] || fail "kepler wrap not flagged"
[ "$i_unmeas" -ge 1 ] || fail "ideal did not flag the reset"
exit 0
