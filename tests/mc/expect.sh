#!/bin/sh
# expect.sh STATUS [REGEX...] -- COMMAND [ARG...]
# Runs COMMAND; passes when it exits with STATUS and its output (stdout and stderr together)
# has a line matching each REGEX (grep -E). Prints the output either way.
# A REGEX with \n in it spans lines: it is a Perl regex matched against the whole output
# (grep -Pz, ^ and $ at line ends), e.g. to tie a core's report line to the words it waits on.
set -u
want=$1
shift
regexes=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	regexes="$regexes$1
"
	shift
done
if [ $# -lt 2 ]; then
	echo "usage: expect.sh STATUS [REGEX...] -- COMMAND [ARG...]" >&2
	exit 2
fi
shift

out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
fail=0
if [ "$status" -ne "$want" ]; then
	echo "expect.sh: exit status $status, expected $want" >&2
	fail=1
fi
old_ifs=$IFS
IFS='
'
for re in $regexes; do
	case $re in
	*'\n'*) printf '%s\n' "$out" | grep -Pzq -- "(?m)$re" ;;
	*) printf '%s\n' "$out" | grep -Eq -- "$re" ;;
	esac
	if [ $? -ne 0 ]; then
		printf "expect.sh: nothing matches '%s'\n" "$re" >&2
		fail=1
	fi
done
IFS=$old_ifs
exit $fail
