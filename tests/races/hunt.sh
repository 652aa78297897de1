#!/bin/sh
# hunt.sh caught NN SLUG STATUS SEEDS [REGEX...] -- bhemu run [OPTION...] ELF
# hunt.sh clean  NN SLUG 0 SEEDS -- bhemu run [OPTION...] ELF
# hunt.sh serial NN SLUG STATUS SEEDS [REGEX...] -- bhemu run [OPTION...] ELF
# Runs the command with `--seed K` inserted after `run`, for K = 1..SEEDS (and --timeout 60 unless
# the options give one).
#   caught: passes at the first K whose run exits with STATUS and prints a line matching every
#           REGEX (grep -E); prints "race #NN SLUG: caught at seed K of SEEDS" and that run's output.
#           Fails when no seed catches it, printing the last run's output.
# Either mode fails at once on exit status 2 (usage error, ELF rejected) unless STATUS is 2.
#   clean:  passes when every run exits 0 and prints no finding ("check NAME:"); prints
#           "race #NN SLUG: clean over SEEDS seeds". Fails at the first run that is not.
#   serial: as caught, with --sched serial; then reruns the seed that caught it RACE_REPLAYS
#           times (default 10): each must exit alike and print the same output, up to the host's
#           own timings ("after 0.002 s"); prints "race #NN SLUG: serial seed K caught, replayed
#           R times identically".
set -u
mode=$1 num=$2 slug=$3 want=$4 seeds=$5
shift 5
regexes=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	regexes="$regexes$1
"
	shift
done
if [ $# -lt 3 ] || { [ "$mode" != caught ] && [ "$mode" != clean ] && [ "$mode" != serial ]; }; then
	echo "usage: hunt.sh caught|clean|serial NN SLUG STATUS SEEDS [REGEX...] -- BHEMU run [OPTION...] ELF" >&2
	exit 2
fi
shift
bhemu=$1
shift 2   # bhemu, run
timeout=
case " $* " in
*" --timeout "*) ;;
*) timeout="--timeout 60" ;;
esac
sched=
[ "$mode" = serial ] && sched="--sched serial"

matches() {
	old_ifs=$IFS
	IFS='
'
	for re in $regexes; do
		if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
			IFS=$old_ifs
			missing=$re
			return 1
		fi
	done
	IFS=$old_ifs
	return 0
}

# Wall-clock numbers are the host's, not the run's: the rest of a serial replay must be identical.
normal() {
	printf '%s\n' "$1" | sed -E 's/[0-9]+\.[0-9]+ ?(s|ms|us)\b/T \1/g; s/(mips|seconds)=[0-9.]+/\1=T/g'
}

replay() {   # replay SEED RUN_OPTION...
	seed=$1
	shift
	first=$(normal "$out")
	r=1
	while [ "$r" -le "${RACE_REPLAYS:-10}" ]; do
		# shellcheck disable=SC2086
		again=$("$bhemu" run $sched --seed "$seed" $timeout "$@" 2>&1)
		st=$?
		if [ "$st" -ne "$status" ] || [ "$(normal "$again")" != "$first" ]; then
			echo "race #$num $slug: serial seed $seed: replay $r differs (exit status $st, first $status)" >&2
			printf '%s\n' "--- first:" "$first" "--- replay $r:" "$(normal "$again")" >&2
			return 1
		fi
		r=$((r + 1))
	done
	echo "race #$num $slug: serial seed $seed caught, replayed ${RACE_REPLAYS:-10} times identically"
	printf '%s\n' "$out"
}

k=1
while [ "$k" -le "$seeds" ]; do
	# shellcheck disable=SC2086
	missing=
	out=$("$bhemu" run $sched --seed "$k" $timeout "$@" 2>&1)
	status=$?
	if [ "$status" -eq 2 ] && [ "$want" -ne 2 ]; then
		printf '%s\n' "$out"
		echo "race #$num $slug: bhemu refused the run (exit status 2) at seed $k" >&2
		exit 1
	fi
	if [ "$mode" = caught ]; then
		if [ "$status" -eq "$want" ] && matches; then
			echo "race #$num $slug: caught at seed $k of $seeds"
			printf '%s\n' "$out"
			exit 0
		fi
	elif [ "$mode" = serial ]; then
		if [ "$status" -eq "$want" ] && matches; then
			replay "$k" "$@"
			exit $?
		fi
	elif [ "$status" -ne 0 ] || printf '%s\n' "$out" | grep -Eq 'check [a-z0-9-]+: on tile'; then
		printf '%s\n' "$out"
		echo "race #$num $slug: the fixed twin failed at seed $k: exit status $status" >&2
		exit 1
	fi
	k=$((k + 1))
done
if [ "$mode" != clean ]; then
	printf '%s\n' "$out"
	echo "race #$num $slug: not caught in $seeds seeds (last: exit status $status, want $want${missing:+, nothing matches '$missing'})" >&2
	exit 1
fi
echo "race #$num $slug: clean over $seeds seeds"
