#!/usr/bin/env bash
# changelog-version.sh prints the version of the newest release in a
# changelog (CHANGELOG.md by default), like "0.2.0". It is the one reader of
# that heading: scripts/release-check.sh releases the version it prints,
# and TestVersionMatchesChangelog holds the client's version constant to it.
#
# Usage: scripts/changelog-version.sh [FILE]
#
# The newest release is the first level-2 heading ("## ") other than
# "## [Unreleased]", as Keep a Changelog orders them, and it must read
# exactly "## [X.Y.Z] - YYYY-MM-DD", with a date that exists. Any other
# level-2 heading before it (an en dash, no date, "v0.3.0", "## Unreleased")
# is an error naming its line, never skipped: skipping it would release the
# version below it. So is a changelog with no release. Exit status 1 on
# error, with the reason on stderr.
set -euo pipefail

file=${1:-CHANGELOG.md}
heading='^## \[(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\] - ([0-9]{4})-([0-9]{2})-([0-9]{2})$'
n=0
while IFS= read -r line || [ -n "$line" ]; do
	n=$((n + 1))
	case $line in
	'## [Unreleased]') continue ;;
	'## '*) ;;
	*) continue ;;
	esac
	if ! [[ $line =~ $heading ]]; then
		echo "$file:$n: \"$line\" is neither \"## [Unreleased]\" nor a release heading \"## [X.Y.Z] - YYYY-MM-DD\"" >&2
		exit 1
	fi
	year=$((10#${BASH_REMATCH[4]})) month=$((10#${BASH_REMATCH[5]})) day=$((10#${BASH_REMATCH[6]}))
	days=(0 31 28 31 30 31 30 31 31 30 31 30 31)
	if ((year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))); then days[2]=29; fi
	if ((month < 1 || month > 12 || day < 1 || day > days[month])); then
		echo "$file:$n: \"$line\": no such date" >&2
		exit 1
	fi
	echo "${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.${BASH_REMATCH[3]}"
	exit 0
done <"$file"
echo "$file: no release heading \"## [X.Y.Z] - YYYY-MM-DD\"" >&2
exit 1
