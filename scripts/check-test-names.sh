#!/usr/bin/env bash
# Every doctest case must run under ctest. doctest_discover_tests registers one ctest test per case, by
# name, and runs it with --test-case=<name>; a ';' in a name is CMake's list separator, so such a case is
# registered as two tests whose filters match nothing, and doctest passes a run that matched no case. The
# case never runs. Fails naming each such case.
# Usage: scripts/check-test-names.sh path/to/heterosim_tests   (a ctest test, `test_names`)
set -euo pipefail
tests=${1:?usage: check-test-names.sh path/to/heterosim_tests}
names=$("$tests" --list-test-cases --no-version | grep -v '^\[doctest\]' | grep -v '^=*$' || true)
[ -n "$names" ] || { echo "$tests lists no test cases" >&2; exit 1; }
bad=$(printf '%s\n' "$names" | grep ';' || true)
if [ -n "$bad" ]; then
  echo "test cases whose names hold ';' (ctest would never run them; use ',' or ':'):" >&2
  printf '%s\n' "$bad" | sed 's/^/  /' >&2
  exit 1
fi
echo "$(printf '%s\n' "$names" | wc -l) test case names, none with ';'"
