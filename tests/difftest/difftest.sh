#!/usr/bin/env bash
# Differential test: runs RV32 guest programs on bhemu and on qemu-riscv32 and requires the
# same stdout and the same exit status.
#
#   difftest.sh [options] BHEMU QEMU PROGRAM.elf
#       one prebuilt program
#   difftest.sh --random N [options] BHEMU QEMU
#       N random programs from rvgen (seeds --first-seed .. +N-1), each assembled with
#       --cc and linked against --obj files (crt0, bare runtime, rvgen_main) and --ldscript
#
# options:
#   --qemu-cpu CPU          qemu -cpu value (CMake passes BHEMU_QEMU_CPU from BhemuGuest.cmake)
#   --max-instructions N    bhemu instruction limit (default 2000000000); 0: no limit, so bhemu
#                           runs its fast interpreter and block compiler instead of the exact one
#   --timeout SECONDS       per run, both emulators (default 300)
#   --rvgen PATH --cc PATH --ldscript FILE --obj FILE...   random mode inputs
#   --first-seed S          first random seed (default 1)
#   --count K               instructions per random program (default 1000)
#   --loops                 rvgen --loops: runs of the program in counted loops (back edges)
#   --keep DIR              keep generated sources, ELFs and outputs in DIR
# exit status: 0 all matched, 1 a mismatch, 2 bad usage or a tool failed
set -u

# usage STATUS: the header comment above, on stdout for --help and on stderr otherwise.
usage() {
	if [ "$1" -eq 0 ]; then
		sed -n '2,/^# exit status/s/^# \{0,1\}//p' "$0"
	else
		sed -n '2,/^# exit status/s/^# \{0,1\}//p' "$0" >&2
	fi
	exit "$1"
}

qemu_cpu="rv32,c=false,zba=true,zbb=true"
max_instructions=2000000000
timeout_s=300
random_n=0
first_seed=1
count=1000
rvgen="" cc="" ldscript="" keep="" loops=()
objs=()
positional=()

while [ $# -gt 0 ]; do
	case "$1" in
	--qemu-cpu) qemu_cpu="$2"; shift 2 ;;
	--max-instructions) max_instructions="$2"; shift 2 ;;
	--timeout) timeout_s="$2"; shift 2 ;;
	--random) random_n="$2"; shift 2 ;;
	--first-seed) first_seed="$2"; shift 2 ;;
	--count) count="$2"; shift 2 ;;
	--loops) loops=(--loops); shift ;;
	--rvgen) rvgen="$2"; shift 2 ;;
	--cc) cc="$2"; shift 2 ;;
	--ldscript) ldscript="$2"; shift 2 ;;
	--obj) objs+=("$2"); shift 2 ;;
	--keep) keep="$2"; shift 2 ;;
	-h|--help) usage 0 ;;
	-*) echo "difftest.sh: unknown option $1" >&2; usage 2 ;;
	*) positional+=("$1"); shift ;;
	esac
done

for number in "$random_n" "$first_seed" "$count" "$max_instructions" "$timeout_s"; do
	case "$number" in
	''|*[!0-9]*) echo "difftest.sh: '$number' is not a number" >&2; exit 2 ;;
	esac
done
if [ "$random_n" -gt 0 ]; then
	[ ${#positional[@]} -eq 2 ] || usage 2
	if [ -z "$rvgen" ] || [ -z "$cc" ] || [ -z "$ldscript" ] || [ ${#objs[@]} -eq 0 ]; then
		echo "difftest.sh: --random needs --rvgen, --cc, --ldscript and --obj" >&2
		exit 2
	fi
else
	[ ${#positional[@]} -eq 3 ] || usage 2
fi
bhemu="${positional[0]}"
qemu="${positional[1]}"
for tool in "$bhemu" "$qemu"; do
	if [ ! -x "$tool" ]; then
		echo "difftest.sh: $tool is not an executable" >&2
		exit 2
	fi
done

# Outputs of a mismatch stay for inspection; a clean run leaves nothing behind.
keep_work=0
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	if [ "$keep_work" -eq 1 ]; then
		echo "files kept in $work"
	else
		rm -rf "$work"
	fi
}
if [ -n "$keep" ]; then
	work="$keep"
	mkdir -p "$work" || exit 2
else
	work="$(mktemp -d "${TMPDIR:-/tmp}/difftest.XXXXXX")" || exit 2
	trap cleanup EXIT
fi

# What bhemu's exit status means when it is not the guest's own.
bhemu_status_note() {
	case "$1" in
	2) echo " (bhemu: bad usage or bad ELF)" ;;
	3) echo " (bhemu: guest fault)" ;;
	4) echo " (bhemu: --max-instructions exceeded)" ;;
	124) echo " (timed out after ${timeout_s}s)" ;;
	*) echo "" ;;
	esac
}

# compare_elf ELF LABEL: runs both emulators; 0 when stdout and exit status agree.
# The first few mismatches are shown in detail, later ones in one line each.
details_left=3
compare_elf() {
	local elf="$1" label="$2" base="$work/$2"
	limit_args=()
	[ "$max_instructions" -gt 0 ] && limit_args=(--max-instructions "$max_instructions")
	timeout "$timeout_s" "$bhemu" run --board grid:1x1 "${limit_args[@]}" "$elf" \
		>"$base.bhemu.out" 2>"$base.bhemu.err"
	local b_status=$?
	timeout "$timeout_s" "$qemu" -cpu "$qemu_cpu" "$elf" >"$base.qemu.out" 2>"$base.qemu.err"
	local q_status=$?

	if [ "$b_status" -eq "$q_status" ] && cmp -s "$base.bhemu.out" "$base.qemu.out"; then
		echo "PASS $label (exit $b_status, $(wc -l <"$base.qemu.out") lines)"
		return 0
	fi
	keep_work=1
	echo "FAIL $label: $elf"
	if [ "$details_left" -le 0 ]; then
		return 1
	fi
	details_left=$((details_left - 1))
	echo "  exit status: bhemu $b_status$(bhemu_status_note "$b_status"), qemu $q_status"
	if ! cmp -s "$base.bhemu.out" "$base.qemu.out"; then
		echo "  stdout differs (--- qemu, +++ bhemu; first 40 lines of the diff):"
		diff -u --label qemu --label bhemu "$base.qemu.out" "$base.bhemu.out" | head -n 40 |
			sed 's/^/    /'
	fi
	if [ -s "$base.bhemu.err" ]; then
		echo "  bhemu stderr:"
		tail -n 20 "$base.bhemu.err" | sed 's/^/    /'
	fi
	if [ -s "$base.qemu.err" ]; then
		echo "  qemu stderr:"
		tail -n 20 "$base.qemu.err" | sed 's/^/    /'
	fi
	echo "  reproduce: $bhemu run --board grid:1x1 $elf; $qemu -cpu $qemu_cpu $elf"
	return 1
}

if [ "$random_n" -eq 0 ]; then
	elf="${positional[2]}"
	if [ ! -f "$elf" ]; then
		echo "difftest.sh: no such ELF: $elf" >&2
		exit 2
	fi
	name="$(basename "$elf" .elf)"
	compare_elf "$elf" "$name"
	exit $?
fi

# Random mode. Assemble with A for the AMOs (never LR/SC: rvgen writes every instruction);
# link with exactly rv32im so the ilp32 libgcc multilib is chosen (riscv-cores.md section 6).
failed=0
failed_seeds=""
last=$((first_seed + random_n - 1))
for seed in $(seq "$first_seed" "$last"); do
	src="$work/rvgen_$seed.S"
	elf="$work/rvgen_$seed.elf"
	if ! "$rvgen" --seed "$seed" --count "$count" "${loops[@]}" -o "$src"; then
		echo "difftest.sh: rvgen failed for seed $seed" >&2
		exit 2
	fi
	if ! "$cc" -march=rv32ima_zba_zbb -mabi=ilp32 -c "$src" -o "$work/rvgen_$seed.o" ||
		! "$cc" -march=rv32im -mabi=ilp32 -nostdlib -nostartfiles -static -T "$ldscript" \
			"${objs[@]}" "$work/rvgen_$seed.o" -lgcc -o "$elf"; then
		echo "difftest.sh: cannot build the program of seed $seed ($src)" >&2
		exit 2
	fi
	if ! compare_elf "$elf" "rvgen_$seed"; then
		failed=$((failed + 1))
		failed_seeds="$failed_seeds $seed"
	fi
done
if [ "$failed" -gt 0 ]; then
	echo "random difftest: $failed of $random_n seeds differ:$failed_seeds" \
		"(regenerate one with: $rvgen --seed S --count $count ${loops[*]} -o FILE.S; use --keep DIR to keep files)"
	exit 1
fi
echo "random difftest: all $random_n seeds ($first_seed..$last, $count items each) match"
exit 0
