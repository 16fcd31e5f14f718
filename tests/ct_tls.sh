#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The provider's CBC TLS record unpadding under valgrind memcheck with the
# record undefined (tests/ct_tls.c): no report, and some for the control
# run that branches on the secret length.  usage: ct_tls.sh VALGRIND CT_TLS
set -u
vg=$1 target=$2
# run [control]: memcheck's error count, if every record was unpadded
run() {
  out=$("$vg" --error-exitcode=0 "$target" "$@" 2>&1) || { printf '%s\n' "$out"; return 1; }
  printf '%s\n' "$out" | grep -q "ct_tls: 3072 records unpadded" || { printf '%s\n' "$out"; return 1; }
  printf '%s\n' "$out" | sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' | tail -n 1
}
n=$(run) || exit 1
c=$(run control) || exit 1
echo "memcheck reports with the record undefined: $n (control, branching on the length: $c)"
[ "$n" = 0 ] && [ -n "$c" ] && [ "$c" -gt 0 ]
