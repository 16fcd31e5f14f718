#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The constant-time check: every usable backend's key setup and kernels run
# under valgrind memcheck with key and data undefined (tests/ct_target.c).
# A backend the table marks constant-time must give no report; one it does
# not (T-table code) must give some, or the check itself is broken.  Prints
# the table the README shows.  usage: ct_check.sh VALGRIND CT_TARGET
set -u
vg=$1
target=$2
status=0
list=$("$target" --list) || exit 1
printf '%-14s %-14s %s\n' backend constant-time "memcheck reports (key and data undefined)"
for entry in $(printf '%s\n' "$list" | tr ' ' ':'); do
    name=${entry%%:*}
    ct=${entry##*:}
    out=$("$vg" --error-exitcode=0 "$target" "$name" 2>&1)
    rc=$?
    errors=$(printf '%s\n' "$out" | sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' | tail -n 1)
    marked=$([ "$ct" = 1 ] && echo yes || echo no)
    if printf '%s\n' "$out" | grep -q "does not run here"; then
        # valgrind's virtual CPU lacks the backend's features (VAES, AVX-512).
        verdict="not run: valgrind's CPU lacks its features (the native trace covers it)"
    elif [ "$rc" -ne 0 ] || [ -z "$errors" ]; then
        verdict="FAILED to run (exit $rc)"
        status=1
    elif [ "$ct" = 1 ] && [ "$errors" -ne 0 ]; then
        verdict="$errors: FAIL, marked constant-time"
        status=1
    elif [ "$ct" = 0 ] && [ "$errors" -eq 0 ]; then
        verdict="0: FAIL, a table backend must be reported (is the check blind?)"
        status=1
    else
        verdict=$errors
    fi
    printf '%-14s %-14s %s\n' "$name" "$marked" "$verdict"
done
exit $status
