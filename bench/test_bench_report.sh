#!/usr/bin/env bash
# The test bench_report_render: scripts/bench-report --render-only on the fixture runs of
# bench/report_fixture (two recorded runs: cores, launch, noc and sync JSON, then noc and sync again
# with other rates, and tensix, whose CB row has sync's key) must write report.md with the
# expected rows, scaling, history and the PNGs, and --publish must copy them.
#
#   test_bench_report.sh SOURCE_DIR WORK_DIR
set -uo pipefail
src=${1:?source dir} work=${2:?work dir}
for tool in jq gnuplot; do
	command -v "$tool" >/dev/null || { echo "test_bench_report: $tool is missing (scripts/bootstrap installs it)"; exit 1; }
done
rm -rf "$work"
mkdir -p "$work" && cp -r "$src/bench/report_fixture/runs" "$work/" || exit 1
"$src/scripts/bench-report" --render-only --results "$work" --publish "$work/published" || {
	echo "test_bench_report: bench-report failed"
	exit 1
}
fail=0
expect() {
	grep -qxF -- "$1" "$work/report.md" || { echo "test_bench_report: report.md lacks the line: $1"; fail=1; }
}
expect "Latest run: 2026-01-02T00:00:00Z, commit 000000000002, full; host: 4 CPUs, Fixture CPU, Linux 6.0."
expect "Recorded runs: 2 (in \`$work/runs/\`). Ratios are bhemu / the reference measured in the same"
expect "| noc | NoC write L1->L1, 8 x 16 KiB | GB/s | 40 | 38-42 (3 runs) | 80 | host memcpy, same blocks | 0.5 | min 0.3 | true |"
expect "| noc | compute, 140 BRISCs, 4 CPUs | MIPS | 7200 | 7000-7400 (3 runs) | 8000 | CPUs x 1-BRISC rate | 0.9 | min 0.8 | true |"
expect "| noc | compute, 140 BRISCs, 1 CPU | MIPS | 1900 | ratio 0.9-0.97 (3 runs) | 2000 | CPUs x 1-BRISC rate | 0.95 | - | - |"
expect "| 1 | 1900 | 2000 | 0.95 | 0.9-0.97 | 0.96 | 0.99 | 1 |"
expect "| 4 | 7200 | 8000 | 0.9 | 0.875-0.925 | 0.92 | 3.9 | 3.95 |"
expect "| noc: NoC write L1->L1, 8 x 16 KiB | 0.25 | 0.5 |"
expect "| launch: slow-dispatch launches, 700 cores | 0.2 | - |"
expect "| cores: geometric mean | 0.5 | - |"
# Two benches with a row of the same key (cb_pingpong_1): each keeps its own history.
expect "| sync: cb pingpong, 1-page CB | 0.1 | 0.2 |"
expect "| tensix: cb pingpong, 1-page CB | - | 0.4 |"
# The latest run has no launch or cores JSON: their rows are not in the latest table.
if grep -q "^| launch |" "$work/report.md"; then
	echo "test_bench_report: the latest run's table has launch rows (the latest run has no launch.json)"
	fail=1
fi
for png in latest scaling history; do
	for dir in "$work" "$work/published"; do
		if [ "$(head -c 8 "$dir/$png.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]; then
			echo "test_bench_report: $dir/$png.png is missing or not a PNG"
			fail=1
		fi
	done
done
cmp -s "$work/report.md" "$work/published/report.md" || { echo "test_bench_report: published report.md differs"; fail=1; }
[ "$fail" -eq 0 ] && echo "test_bench_report: ok"
exit "$fail"
