#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# docs/VENDORING.md as a user would follow it: generated files copied into a
# project of their own, built there and checked against FIPS-197's example
# vectors (appendix C).  An AES-NI ECB kernel with the generated key setup,
# nothing else (where the CPU has AES-NI); a portable kernel with the files
# kernels.h says it needs and the key schedules of aes_gen_expand_key.
# Usage: vendor_check.sh SRC_DIR LIBAES_GEN_A
set -euo pipefail
src=$1 archive=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
gen=$src/generated
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
san=${AES_GEN_SANITIZE:+-fsanitize=$AES_GEN_SANITIZE}
bits=$(/usr/bin/python3 -c 'import json, sys; print(min(json.load(open(sys.argv[1]))["request"]["keys"]))' "$gen/manifest.json")
case $bits in
  128) want=69c4e0d86a7b0430d8cdb78070b4c55a ;;
  192) want=dda97ca4864cdfe06eaf70a0ec0d7191 ;;
  256) want=8ea2b7ca516745bfeafc49904b496089 ;;
esac
# The narrowest ECB kernel of a backend at this key size (any generation has one).
kernel() { grep -o -E "\baes_gen_$1_ecb_$2_k${bits}_w[0-9]+\b" "$gen/kernels.h" | sort -t w -k2 -n | head -1; }

# main.c: key setup by $1 (a statement filling ks), the kernels $2/$3 of width w.
write_main() {
  local enc=$2 dec=$3 w=${2##*_w}
  cat >"$4" <<EOF
#include <stdio.h>
#include <string.h>
#include "kernels.h"
$5
int main(void)
{
    static const uint8_t key[32] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
    uint8_t ks[512], in[16 * $w], out[16 * $w], back[16 * $w];
    for (int b = 0; b < $w; b++)
        for (int i = 0; i < 16; i++)
            in[16 * b + i] = (uint8_t)(0x11 * i);
    $1
    (void)key;
    $enc(ks, NULL, out, in, $w);
    $dec(ks + 256, NULL, back, out, $w);
    for (int i = 0; i < 16; i++)
        printf("%02x", out[i]);
    printf("\n");
    return memcmp(back, in, sizeof in) != 0 || memcmp(out, out + 16 * ($w - 1), 16) != 0;
}
EOF
}

# 1. AES-NI: the mode's .S files, the key setup's and kernels.h; no runtime.
enc=$(kernel aesni enc) dec=$(kernel aesni dec)
if [ -n "$enc" ] && grep -q "AES_GEN_HAVE_AESNI_KEY_SETUP_K$bits" "$gen/kernels.h" &&
   grep -q -w aes /proc/cpuinfo && grep -q -w ssse3 /proc/cpuinfo; then
  mkdir "$tmp/aesni"
  cp "$gen/kernels.h" "$gen/x86_64/aesni_ecb_enc.S" "$gen/x86_64/aesni_ecb_dec.S" \
     "$gen/x86_64/aesni_key_setup.S" "$tmp/aesni/"
  write_main "aes_gen_aesni_key_setup_k$bits(key, ks);" "$enc" "$dec" "$tmp/aesni/main.c" ""
  (cd "$tmp/aesni" && cc $san -std=c11 -Wall -Wextra -Werror -o app main.c aesni_ecb_enc.S \
     aesni_ecb_dec.S aesni_key_setup.S)
  out=$("$tmp/aesni/app")
  [ "$out" = "$want" ] || { echo "vendored aesni: $out, FIPS-197 says $want"; exit 1; }
  echo "vendored aesni ($enc, $dec, the generated key setup): $out"
else
  echo "vendored aesni: skipped (no AES-NI here, or no aesni ECB kernels at AES-$bits)"
fi

# 2. portable: its C file and what kernels.h names beside it, nothing else;
#    the round keys from aes_gen_expand_key (a helper linked with
#    libaes_gen.a writes them as a C initializer the copy includes).
enc=$(kernel portable enc) dec=$(kernel portable dec)
if [ -n "$enc" ]; then
  needs=$(sed -n 's|^/\* portable: .*; also \(.*\) \*/$|\1|p' "$gen/kernels.h" | tr -d ',')
  [ -n "$needs" ]
  mkdir -p "$tmp/portable/portable"
  for f in $needs portable/portable_ecb_enc.c portable/portable_ecb_dec.c; do
    cp "$gen/$f" "$tmp/portable/$f"
  done
  cat >"$tmp/expand.c" <<EOF
#include <stdio.h>
#include <aes_gen.h>
int main(void)
{
    static const uint8_t key[32] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
    uint8_t ks[480] = {0};
    if (aes_gen_expand_key("fips", key, $bits / 8, 0, ks, 240) ||
        aes_gen_expand_key("fips", key, $bits / 8, 1, ks + 256, 240))
        return 1;
    for (int i = 0; i < 480; i++)
        printf("%d,%s", ks[i], i % 16 == 15 ? "\\n" : "");
    return 0;
}
EOF
  cc $san -std=c11 -Wall -Wextra -Werror -I"$src/runtime/include" -o "$tmp/expand" \
    "$tmp/expand.c" "$archive"
  "$tmp/expand" >"$tmp/portable/ks.inc"
  write_main "static const uint8_t expanded[480] = {
#include \"ks.inc\"
    };
    memcpy(ks, expanded, sizeof expanded);" "$enc" "$dec" "$tmp/portable/main.c" ""
  (cd "$tmp/portable" && cc $san -std=c11 -Wall -Wextra -Werror -I. -o app main.c \
     portable/portable_ecb_enc.c portable/portable_ecb_dec.c tables.c)
  out=$("$tmp/portable/app")
  [ "$out" = "$want" ] || { echo "vendored portable: $out, FIPS-197 says $want"; exit 1; }
  echo "vendored portable ($enc, $dec, $needs; aes_gen_expand_key's schedules): $out"
else
  echo "vendored portable: skipped (no portable ECB kernels at AES-$bits)"
fi
echo "vendoring check passed"
