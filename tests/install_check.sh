#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Installs the build into a temporary prefix and builds two consumers against
# it, as a user would: the README's C example with pkg-config, and a CMake
# project with find_package(aes_gen).  Usage: install_check.sh SRC_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A sanitized build (make test SANITIZE=...): its consumers link the runtime.
san=${AES_GEN_SANITIZE:+-fsanitize=$AES_GEN_SANITIZE}
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
libdir=$(dirname "$(find "$tmp/prefix" -name libaes_gen.a | head -1)")
export PKG_CONFIG_PATH="$libdir/pkgconfig"
export LD_LIBRARY_PATH="$libdir"
# The key sizes this build generated (make gen KEYS=...): the smallest one drives
# the CMake consumer; the README example needs AES-128.
keys=$(/usr/bin/python3 -c 'import json, sys; print(" ".join(map(str, sorted(json.load(open(sys.argv[1]))["request"]["keys"]))))' "$src/generated/manifest.json")
bits=${keys%% *}

# The example between the markers in README.md, exactly as users read it.
sed -n '/<!-- example:begin -->/,/<!-- example:end -->/p' "$src/README.md" |
  sed '1,2d;$d' | sed '$d' >"$tmp/example.c"
# Against the shared library (the default -laes_gen) and the static archive.
cc $san -std=c11 -Wall -Wextra -Werror "$tmp/example.c" -o "$tmp/example" \
  $(pkg-config --cflags --libs aes_gen)
cc $san -std=c11 -Wall -Wextra -Werror "$tmp/example.c" -o "$tmp/example_static" \
  $(pkg-config --cflags aes_gen) $(pkg-config --static --libs-only-L aes_gen) \
  -Wl,-Bstatic $(pkg-config --static --libs-only-l aes_gen) -Wl,-Bdynamic
# (ldd's output captured first: grep -q closing a pipe early fails under pipefail)
deps=$(ldd "$tmp/example"); deps_static=$(ldd "$tmp/example_static")
[[ "$deps" == *libaes_gen.so.* ]]         # the shared consumer uses the .so
[[ "$deps_static" != *libaes_gen* ]]      # the static one does not
for ex in example example_static; do
  if [[ " $keys " == *" 128 "* ]]; then
    out=$("$tmp/$ex")
    echo "pkg-config consumer ($ex): $out"
    [ "${out%% *}" = 69c4e0d86a7b0430d8cdb78070b4c55a ]
  else
    # Without AES-128 the example must fail with the error of its own.
    if out=$("$tmp/$ex" 2>&1); then exit 1; fi
    echo "pkg-config consumer ($ex, AES-128 not generated): $out"
    [[ "$out" == *"not generated in this build"* ]]
  fi
done

# The shared library exports the API of aes_gen.h at AES_GEN_<major>, nothing
# else; with AES_GEN_EXPORT_KERNELS the kernels (and the key setup beside them)
# of aes_gen/kernels.h too, at the generation's own version node.
api_names() { grep -o -E '\baes_gen_[a-z_]+\(' "$tmp/prefix/include/aes_gen.h" | tr -d '(' | sort -u; }
kernel_node=$(sed -n 's/^\(AES_GEN_KERNELS_[0-9a-f]*\) {$/\1/p' "$src/generated/aes_gen_kernels.map")
[ -n "$kernel_node" ]
check_exports() { # library, with kernels (0/1)
  local syms api kernels want="" other
  syms=$(nm -D --defined-only "$1" | awk '$2 ~ /^[TDR]$/ {print $3}')
  api=$(grep -E '@@?AES_GEN_[0-9]+$' <<<"$syms" | sed 's/@.*//' | sort -u)
  [ "$api" = "$(api_names)" ] || { echo "$1: the API at AES_GEN_N differs from aes_gen.h"; exit 1; }
  kernels=$(grep -E "@@?$kernel_node\$" <<<"$syms" | sed 's/@.*//' | sort -u || true)
  [ "$2" = 0 ] || want=$(grep -E '^    aes_gen_[a-z0-9_]+;$' "$src/generated/aes_gen_kernels.map" |
    tr -d ' ;' | grep -v -x -F -f <(api_names) | sort -u)
  [ "$kernels" = "$want" ] || { echo "$1: the kernels exported differ from kernels.h's"; exit 1; }
  other=$(grep -v -E "@@?(AES_GEN_[0-9]+|$kernel_node)\$" <<<"$syms" || true)
  [ -z "$other" ] || { echo "$1 exports more: $other"; exit 1; }
}
with_kernels=${AES_GEN_EXPORT_KERNELS:-0}
check_exports "$libdir/libaes_gen.so" "$with_kernels"
echo "shared library: the API at its version node$([ "$with_kernels" = 0 ] ||
  echo ", the kernels at $kernel_node")"
# The other map on the same objects (the archive's); with the kernels, a
# program that calls one through aes_gen/kernels.h, against the API's result.
other=$([ "$with_kernels" = 0 ] && echo 1 || echo 0)
other_map=$([ "$other" = 1 ] && echo aes_gen_kernels.map || echo aes_gen.map)
mkdir "$tmp/other"
cc $san -shared -o "$tmp/other/libaes_gen.so" -Wl,--whole-archive "$libdir/libaes_gen.a" \
  -Wl,--no-whole-archive -Wl,--version-script="$src/generated/$other_map" -Wl,-z,noexecstack
check_exports "$tmp/other/libaes_gen.so" "$other"
kernel=aes_gen_portable_ecb_enc_k${bits}_w1
if [ "$other" = 1 ] && grep -q "^    $kernel;" "$src/generated/$other_map"; then
  cat >"$tmp/kcall.c" <<EOF
#include <string.h>
#include <aes_gen.h>
#include <aes_gen/kernels.h>
int main(void)
{
    static const unsigned char key[32] = {1, 2, 3};
    unsigned char in[16] = {4, 5, 6}, api[16], direct[16], iv[16] = {0};
    aes_gen_key k;
    if (aes_gen_setkey_backend(&k, key, $bits / 8, "portable") ||
        aes_gen_ecb_encrypt(&k, api, in, 16))
        return 1;
    $kernel(aes_gen_round_keys(&k, 0), iv, direct, in, 1);
    return memcmp(api, direct, 16) != 0;
}
EOF
  cc $san -std=c11 -Wall -Wextra -Werror "$tmp/kcall.c" -o "$tmp/kcall" -I"$tmp/prefix/include" \
    -L"$tmp/other" -laes_gen -Wl,-rpath,"$tmp/other"
  LD_LIBRARY_PATH="$tmp/other" "$tmp/kcall"
  echo "$other_map: $kernel called through aes_gen/kernels.h matches the API"
fi
echo "$other_map: the exports checked on the archive's objects"

# A library of the user's that links libaes_gen.a re-exports the API only too:
# the internals are hidden in the archive's objects.
printf '#include <aes_gen.h>\nint wrapper_setkey(aes_gen_key *k, const void *key) { return aes_gen_setkey(k, key, 16); }\n' >"$tmp/wrap.c"
cc -shared -fPIC -o "$tmp/libwrap.so" "$tmp/wrap.c" -I"$tmp/prefix/include" \
  -Wl,--whole-archive "$libdir/libaes_gen.a" -Wl,--no-whole-archive
extra=$(nm -D --defined-only "$tmp/libwrap.so" | awk '$2 ~ /^[TDRB]$/ {print $3}' |
  grep -v -E '^aes_gen_[a-z0-9_]+_k(128|192|256)(_w[0-9]+)?$|^wrapper_setkey$' |
  grep -v -x -F -f <(grep -o -E '\baes_gen_[a-z_]+\(' "$tmp/prefix/include/aes_gen.h" | tr -d '(') || true)
[ -z "$extra" ] || { echo "a library linking libaes_gen.a re-exports internals: $extra"; exit 1; }
echo "static archive: a wrapper library re-exports the public API and the kernels only"

# The OpenSSL provider, where the build has it: in OpenSSL's module directory
# under the prefix, as aes_gen_provider.so and aesgen.so, and loadable from
# there (not when sanitized: the openssl tool does not load the runtime).
if [ -e "$build/provider/aes_gen_provider.so" ]; then
  mods="$libdir/ossl-modules"
  [ -f "$mods/aes_gen_provider.so" ] && [ -e "$mods/aesgen.so" ]
  if [ -z "$san" ] && command -v openssl >/dev/null; then
    openssl list -cipher-algorithms -provider-path "$mods" -provider aesgen |
      grep -q 'AES-[0-9]*-CTR.*@ aesgen'
    echo "provider: installed in lib/ossl-modules and loaded from there by openssl"
  fi
fi

# The header as C99 (pedantic), C11 and C++11.
printf '#include <aes_gen.h>\nint main(void) { return aes_gen_version()[0] == 0; }\n' >"$tmp/h.c"
cc -std=c99 -pedantic-errors -Wall -Wextra -Werror -I"$tmp/prefix/include" -c "$tmp/h.c" -o "$tmp/h99.o"
cc -std=c11 -pedantic-errors -Wall -Wextra -Werror -I"$tmp/prefix/include" -c "$tmp/h.c" -o "$tmp/h11.o"
if command -v c++ >/dev/null; then
  cp "$tmp/h.c" "$tmp/h.cc"
  c++ -std=c++11 -pedantic-errors -Wall -Wextra -Werror -I"$tmp/prefix/include" -c "$tmp/h.cc" -o "$tmp/hxx.o"
fi
echo "header: C99 -pedantic-errors, C11 and C++11 clean"

# A CMake consumer that also calls one kernel directly through kernels.h (the
# static library's, or the shared one's with AES_GEN_EXPORT_KERNELS; else the
# API's ECB).
mkdir "$tmp/cm"
cat >"$tmp/cm/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(aes_gen REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE aes_gen::aes_gen)
CMAKE
cat >"$tmp/cm/main.c" <<C
#include <stdio.h>
#include <aes_gen.h>
#include <aes_gen/kernels.h>

int main(void)
{
    unsigned char key[32] = {0}, block[16] = {0};
    aes_gen_key k;
    if (aes_gen_setkey_backend(&k, key, $bits / 8, "portable") != AES_GEN_OK)
        return 1;
#ifdef API_ONLY
    if (aes_gen_ecb_encrypt(&k, block, block, 16) != AES_GEN_OK)
        return 1;
#else
    aes_gen_portable_ecb_enc_k${bits}_w1(aes_gen_round_keys(&k, 0), NULL, block, block, 1);
#endif
    for (int i = 0; i < 16; i++)
        printf("%02x", block[i]);
    printf("\\n");
    return 0;
}
C
for kind in shared static; do
  api_only=$([ $kind = shared ] && [ "$with_kernels" = 0 ] && echo -DAPI_ONLY || true)
  cmake -S "$tmp/cm" -B "$tmp/cm/$kind" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
    -DCMAKE_C_FLAGS="$san $api_only" \
    -DAES_GEN_STATIC=$([ $kind = static ] && echo ON || echo OFF) >/dev/null
  cmake --build "$tmp/cm/$kind" >/dev/null
  out=$("$tmp/cm/$kind/consumer")
  echo "find_package consumer ($kind): $out"
  # AES of the zero block under the zero key (FIPS-197 known answers).
  case $bits in
    128) [ "$out" = 66e94bd4ef8a2c3b884cfa59ca342b2e ] ;;
    192) [ "$out" = aae06992acbf52a3e8f4a96ec9300bd7 ] ;;
    256) [ "$out" = dc95c078a2408989ad48a21492842087 ] ;;
  esac
done

# As a subproject: the parent's build type stays, no tests or bench, the alias works.
mkdir "$tmp/sub"
cat >"$tmp/sub/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.18)
project(parent C)
add_subdirectory("$src" aes_gen)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE aes_gen::aes_gen)
CMAKE
cp "$tmp/cm/main.c" "$tmp/sub/"
cmake -S "$tmp/sub" -B "$tmp/sub/build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="$san" >/dev/null
grep -q '^CMAKE_BUILD_TYPE:STRING=Debug$' "$tmp/sub/build/CMakeCache.txt"
grep -q '^AES_GEN_TESTS:BOOL=OFF$' "$tmp/sub/build/CMakeCache.txt"
cmake --build "$tmp/sub/build" -j 2 >/dev/null
[ ! -e "$tmp/sub/build/aes_gen/aes-gen-bench" ]
out=$("$tmp/sub/build/consumer")
echo "subproject consumer: $out"

# A parent with no build type still gets an optimised library, and its
# install takes nothing of aes-gen (AES_GEN_INSTALL is OFF in a subproject;
# nothing is built, so installing aes-gen's libraries would fail).
cat >>"$tmp/sub/CMakeLists.txt" <<'CMAKE'
install(FILES main.c DESTINATION share/parent)
CMAKE
cmake -S "$tmp/sub" -B "$tmp/sub/plain" -DCMAKE_C_FLAGS="$san" >/dev/null
grep -q -- '-O3' "$tmp/sub/plain/aes_gen/CMakeFiles/aes_gen_objects.dir/flags.make"
! grep -q -- '-O[23]' "$tmp/sub/plain/CMakeFiles/consumer.dir/flags.make"  # the parent's own: as it set
cmake --install "$tmp/sub/plain" --prefix "$tmp/parent" >/dev/null
[ -z "$(find "$tmp/parent" -name '*aes_gen*')" ] && [ -f "$tmp/parent/share/parent/main.c" ]
echo "subproject without a build type: the library at -O3, the parent's install has no aes-gen"

# The .pc file has plain paths: for a /usr install pkg-config prints the
# library alone (it drops the system's -I and -L).
DESTDIR="$tmp/dest" cmake --install "$build" --prefix /usr >/dev/null
pc=$(find "$tmp/dest" -name aes_gen.pc)
grep -q '^prefix=/usr$' "$pc"
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs aes_gen)
[ "$(echo $flags)" = "-laes_gen" ] || { echo "pkg-config for /usr: $flags"; exit 1; }
echo "pkg-config for a /usr prefix: $flags"
# The docs went with it.
for f in LICENSE README.md API.md VENDORING.md; do [ -f "$tmp/dest/usr/share/doc/aes_gen/$f" ]; done

# uninstall removes what the last install wrote (here the DESTDIR one).
DESTDIR="$tmp/dest" cmake --build "$build" --target uninstall >/dev/null
[ -z "$(find "$tmp/dest" -type f)" ] || { echo "uninstall left:"; find "$tmp/dest" -type f; exit 1; }
echo "uninstall: every installed file removed"
echo "install check passed"
