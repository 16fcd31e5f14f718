#!/bin/bash
# Installs the build into a temporary prefix and builds two consumers against
# it, as a user would: the README's C example with pkg-config, and a CMake
# project with find_package(aes_gen).  Usage: install_check.sh SRC_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"

# The example between the markers in README.md, exactly as users read it.
sed -n '/<!-- example:begin -->/,/<!-- example:end -->/p' "$src/README.md" |
  sed '1,2d;$d' | sed '$d' >"$tmp/example.c"
cc -std=c11 -Wall -Wextra -Werror "$tmp/example.c" -o "$tmp/example" \
  $(pkg-config --cflags --libs aes_gen)
out=$("$tmp/example")
echo "pkg-config consumer: $out"
[ "${out%% *}" = 69c4e0d86a7b0430d8cdb78070b4c55a ]

# A CMake consumer that also calls one kernel directly through kernels.h.
mkdir "$tmp/cm"
cat >"$tmp/cm/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(aes_gen REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE aes_gen::aes_gen)
CMAKE
cat >"$tmp/cm/main.c" <<'C'
#include <stdio.h>
#include <aes_gen.h>
#include <aes_gen/kernels.h>

int main(void)
{
    unsigned char key[16] = {0}, block[16] = {0};
    aes_gen_key k;
    if (aes_gen_setkey_backend(&k, key, 16, "portable") != AES_GEN_OK)
        return 1;
    aes_gen_portable_ecb_enc_k128_w1(aes_gen_round_keys(&k, 0), NULL, block, block, 1);
    for (int i = 0; i < 16; i++)
        printf("%02x", block[i]);
    printf("\n");
    return 0;
}
C
cmake -S "$tmp/cm" -B "$tmp/cm/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cm/build" >/dev/null
out=$("$tmp/cm/build/consumer")
echo "find_package consumer: $out"
# AES-128 of the zero block under the zero key.
[ "$out" = 66e94bd4ef8a2c3b884cfa59ca342b2e ]
echo "install check passed"
