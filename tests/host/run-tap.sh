#!/bin/sh
# run-tap.sh CMD... — run each command, merge their TAP output into one
# stream numbered 1..N (plan last), and exit 1 if any test failed or any
# command exited non-zero (a command that dies is reported as a failure).
set -u
n=0
fail=0
for cmd in "$@"; do
	out=$(mktemp)
	sh -c "$cmd" >"$out" 2>&1
	rc=$?
	name=$(echo "$cmd" | sed 's|.*/||')
	while IFS= read -r line; do
		case "$line" in
		"ok "*|"not ok "*)
			n=$((n + 1))
			st=${line%% [0-9]*}
			rest=$(echo "$line" | sed -E 's/^(not )?ok [0-9]+ ?-? ?//')
			[ "$st" = "not ok" ] && fail=1
			echo "$st $n - $rest";;
		1..*|"TAP version"*) ;;
		*) echo "# $line";;
		esac
	done <"$out"
	rm -f "$out"
	if [ $rc -ne 0 ]; then
		n=$((n + 1))
		fail=1
		echo "not ok $n - $name exited with status $rc"
	fi
done
echo "1..$n"
exit $fail
