#!/bin/sh
# hunt.sh caught NN SLUG STATUS SEEDS [REGEX...] -- bhemu run [OPTION...] ELF
# hunt.sh clean  NN SLUG 0 SEEDS -- bhemu run [OPTION...] ELF
# Runs the command with `--seed K` inserted after `run`, for K = 1..SEEDS (and --timeout 60 unless
# the options give one).
#   caught: passes at the first K whose run exits with STATUS and prints a line matching every
#           REGEX (grep -E); prints "race #NN SLUG: caught at seed K of SEEDS" and that run's output.
#           Fails when no seed catches it, printing the last run's output.
# Either mode fails at once on exit status 2 (usage error, ELF rejected) unless STATUS is 2.
#   clean:  passes when every run exits 0 and prints no finding ("check NAME:"); prints
#           "race #NN SLUG: clean over SEEDS seeds". Fails at the first run that is not.
set -u
mode=$1 num=$2 slug=$3 want=$4 seeds=$5
shift 5
regexes=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	regexes="$regexes$1
"
	shift
done
if [ $# -lt 3 ] || { [ "$mode" != caught ] && [ "$mode" != clean ]; }; then
	echo "usage: hunt.sh caught|clean NN SLUG STATUS SEEDS [REGEX...] -- BHEMU run [OPTION...] ELF" >&2
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

k=1
while [ "$k" -le "$seeds" ]; do
	# shellcheck disable=SC2086
	missing=
	out=$("$bhemu" run --seed "$k" $timeout "$@" 2>&1)
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
	elif [ "$status" -ne 0 ] || printf '%s\n' "$out" | grep -Eq 'check [a-z0-9-]+: on tile'; then
		printf '%s\n' "$out"
		echo "race #$num $slug: the fixed twin failed at seed $k: exit status $status" >&2
		exit 1
	fi
	k=$((k + 1))
done
if [ "$mode" = caught ]; then
	printf '%s\n' "$out"
	echo "race #$num $slug: not caught in $seeds seeds (last: exit status $status, want $want${missing:+, nothing matches '$missing'})" >&2
	exit 1
fi
echo "race #$num $slug: clean over $seeds seeds"
