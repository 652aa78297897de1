#!/bin/sh
# serial_same.sh SEED OTHER_SEEDS -- BHEMU COMMAND [OPTION...]
# Serial scheduling is a function of the seed: runs `BHEMU COMMAND --sched serial --seed SEED
# [OPTION...]` twice and fails unless both exit alike and print the same output (up to wall-clock
# numbers: "0.012 s", "mips=2.93", "123.4 launches/s"); with --stats that covers the instructions
# of every core, the scheduling points, the virtual time and a hash of every tile's L1. Then runs
# seeds 1..OTHER_SEEDS other than SEED and fails unless at least one of them schedules differently
# (another output): the seed, not chance, chose the interleaving.
set -u
seed=$1 others=$2
shift 2
[ "${1:-}" = "--" ] || { echo "usage: serial_same.sh SEED OTHER_SEEDS -- BHEMU COMMAND [OPTION...]" >&2; exit 2; }
shift
bhemu=$1 cmd=$2
shift 2

normal() {
	printf '%s\n' "$1" | sed -E 's/[0-9]+\.[0-9]+ ?(s|ms|us)\b/T \1/g; s/(mips|seconds)=[0-9.]+/\1=T/g;
		s/[0-9.]+ (launches|seeds)\/s/R \1\/s/g'
}


# shellcheck disable=SC2068
first=$("$bhemu" "$cmd" --sched serial --seed "$seed" "$@" 2>&1)
st1=$?
second=$("$bhemu" "$cmd" --sched serial --seed "$seed" "$@" 2>&1)
st2=$?
if [ "$st1" -ne "$st2" ] || [ "$(normal "$first")" != "$(normal "$second")" ]; then
	echo "seed $seed ran differently twice (exit status $st1, then $st2):" >&2
	printf '%s\n' "--- first:" "$(normal "$first")" "--- second:" "$(normal "$second")" >&2
	exit 1
fi
k=1
while [ "$k" -le "$others" ]; do
	if [ "$k" -ne "$seed" ]; then
		other=$("$bhemu" "$cmd" --sched serial --seed "$k" "$@" 2>&1)
		if [ "$(normal "$other" | grep -v '^bhemu: seed')" != "$(normal "$first" | grep -v '^bhemu: seed')" ]; then
			echo "seed $seed: the same run twice (exit status $st1); seed $k schedules differently"
			printf '%s\n' "$first"
			exit 0
		fi
	fi
	k=$((k + 1))
done
printf '%s\n' "$first"
echo "seeds 1..$others all ran like seed $seed: the seed does not choose the interleaving" >&2
exit 1
