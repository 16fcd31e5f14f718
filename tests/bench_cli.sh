#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# aes-gen-bench's command line: every bad value, conflict or unknown option is
# refused with exit status 2 and a message naming it, before anything runs;
# --opt=value works like --opt value.  Usage: bench_cli.sh BENCH
bench=$1
fail=0
refuse() { # expected message fragment, then the arguments
  want=$1; shift
  out=$("$bench" "$@" 2>&1); rc=$?
  case "$rc:$out" in
    2:*"$want"*) ;;
    *) echo "aes-gen-bench $*: expected exit 2 and '$want', got $rc: $out"; fail=1 ;;
  esac
}
refuse "--width takes a number" --width abc
refuse "--width takes a number" --width=-1
refuse "--bytes takes a number" --bytes 16abc
refuse "--samples takes a number from 1 to 64" --samples 100
refuse "--samples takes a number" --samples 0
refuse "--sizes takes a number" --gcm --sizes 16,x
refuse "--keys takes" --keys 150
refuse "choose one" --csv --json
refuse "choose one" --gcm --xts
refuse "needs a value" --width
refuse "unknown option" --frob
refuse "unexpected argument" extra
refuse "unknown mode" --modes ctr_enc,nope
refuse "multiple of 16" --bytes 24
refuse "--buffers takes a number from 1 to 64" --buffers 65
refuse "--buffers takes a number" --buffers 0
refuse "--buffers is for the mode table and --short" --gcm --buffers 4
refuse "--misalign takes a number from 0 to 63" --misalign 64
"$bench" --version | grep -q '^aes-gen-bench [0-9]' || { echo "--version"; fail=1; }
"$bench" --samples=1 --bytes=64 --modes=ctr_enc --csv | grep -q '^vaes\|^aesni\|^vpaes\|^ttable\|^portable\|^tilegx' ||
  { echo "--opt=value"; fail=1; }
"$bench" --samples=1 --bytes=64 --modes=ecb_enc --buffers=16 | grep -q '^calls: in place, going round 16 buffers' ||
  { echo "--buffers"; fail=1; }
"$bench" --samples=1 --bytes=64 --modes=ecb_dec --buffers=2 --misalign=15 --csv | grep -q ',ecb_dec,' ||
  { echo "--misalign"; fail=1; }
"$bench" --gcm --samples=1 --sizes=64 --misalign=8 --csv | grep -q ',dec,64,' ||
  { echo "--gcm --misalign"; fail=1; }
[ $fail = 0 ] && echo "bench command line: every bad input refused, --opt=value taken"
exit $fail
