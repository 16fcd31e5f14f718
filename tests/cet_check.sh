#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# CET: every object in the static library says it is IBT and SHSTK
# compatible (GNU property note), so a program that links it keeps its own
# marking.  usage: cet_check.sh READELF LIBRARY.a
set -u
notes=$("$1" -n --wide "$2") || exit 1
members=$(printf '%s\n' "$notes" | grep -c '^File:')
missing=$(printf '%s\n' "$notes" | awk '
    /^File:/ { if (name != "" && !ok) print name; name = $2; ok = 0 }
    /x86 feature: IBT, SHSTK/ { ok = 1 }
    END { if (name != "" && !ok) print name }')
if [ "$members" -eq 0 ]; then
    echo "cet_check: no objects in $2"
    exit 1
fi
if [ -n "$missing" ]; then
    echo "cet_check: without the IBT and SHSTK property:"
    printf '  %s\n' $missing
    exit 1
fi
echo "cet_check: all $members objects of $2 are marked IBT, SHSTK"
