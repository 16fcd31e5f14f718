#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# aes_gen_provider.so through the openssl command line tool: a random file
# encrypted with `openssl enc` on the provider (-provider aesgen beside the
# default one, -propquery provider=aesgen) and on the default provider alone
# must be the same bytes, and each provider decrypts both back to the file;
# a wrong padding fails with both; `openssl list` names the provider's
# ciphers; with the README's openssl.cnf (default_properties =
# ?provider=aesgen) plain commands run on them.  Only the key sizes the
# build generated (generated/manifest.json's "keys") are offered.
# Usage: provider_cli.sh OPENSSL MODULE_DIR MANIFEST
set -eu
openssl=$1 dir=$2 manifest=$3
[ -e "$dir/aesgen.so" ] || { echo "no $dir/aesgen.so"; exit 1; }
sizes=$(/usr/bin/python3 -c 'import json, sys; print(*json.load(open(sys.argv[1]))["request"]["keys"])' \
        "$manifest")
first=${sizes%% *}
generated() { case " $sizes " in *" $1 "*) return 0 ;; esac; return 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

head -c 100003 /dev/urandom >"$tmp/plain"

# enc ours|default ARGS...: openssl enc with aesgen answering for the cipher
# (the default provider beside it), or with the default provider alone.
enc() {
  if [ "$1" = ours ]; then
    shift
    "$openssl" enc -provider-path "$dir" -provider aesgen -provider default \
      -propquery provider=aesgen "$@"
  else
    shift
    "$openssl" enc "$@"
  fi
}

# The provider answers for the cipher: -propquery provider=aesgen fails
# where aesgen has no such cipher (checked once with an unknown one).
if enc ours -aes-128-cfb8 -K 00112233445566778899aabbccddeeff \
     -iv 00112233445566778899aabbccddeeff -in "$tmp/plain" -out /dev/null 2>/dev/null; then
  echo "-propquery provider=aesgen fetched AES-128-CFB8, which aesgen does not offer"
  exit 1
fi

for cipher in aes-256-ctr aes-128-cbc aes-192-ofb aes-256-cfb aes-128-ecb aes-192-cbc; do
  bits=${cipher#aes-}; bits=${bits%%-*}
  generated "$bits" || { echo "$cipher: AES-$bits not generated"; continue; }
  key=$(od -An -tx1 -N$((bits / 8)) /dev/urandom | tr -d ' \n')
  # The key and the IV (ECB has none) as the arguments every call gets.
  if [ "${cipher##*-}" = ecb ]; then
    set -- "-$cipher" -K "$key"
  else
    set -- "-$cipher" -K "$key" -iv "$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
  fi
  for size in 0 1 15 16 17 4095 100003; do
    head -c $size "$tmp/plain" >"$tmp/in"
    enc ours "$@" -in "$tmp/in" -out "$tmp/ours"
    enc default "$@" -in "$tmp/in" -out "$tmp/default"
    cmp -s "$tmp/ours" "$tmp/default" ||
      { echo "$cipher, $size bytes: the providers' ciphertexts differ"; exit 1; }
    for ct in ours default; do
      for who in ours default; do
        enc "$who" -d "$@" -in "$tmp/$ct" -out "$tmp/back"
        cmp -s "$tmp/back" "$tmp/in" ||
          { echo "$cipher, $size bytes: $who does not decrypt $ct's ciphertext"; exit 1; }
      done
    done
  done
  echo "$cipher: the providers agree, and each decrypts both"
done

# A wrong padding fails with both.
key=$(od -An -tx1 -N$((first / 8)) /dev/urandom | tr -d ' \n')
ecb=-aes-$first-ecb
head -c 64 "$tmp/plain" >"$tmp/in"
enc default $ecb -nopad -K $key -in "$tmp/in" -out "$tmp/ct"
if enc ours -d $ecb -K $key -in "$tmp/ct" -out /dev/null 2>"$tmp/err"; then
  # A random last block with a valid padding: possible, and then the same for both.
  enc default -d $ecb -K $key -in "$tmp/ct" -out /dev/null
elif enc default -d $ecb -K $key -in "$tmp/ct" -out /dev/null 2>/dev/null; then
  echo "a wrong padding: the default provider takes it, aesgen does not"; exit 1
else
  grep -q "bad decrypt" "$tmp/err" || { echo "aesgen's bad padding error:"; cat "$tmp/err"; exit 1; }
fi
echo "a wrong padding: refused by both (bad decrypt)"

# openssl list names the ciphers, at the provider.
list=$("$openssl" list -cipher-algorithms -provider-path "$dir" -provider aesgen)
for name in AES-128-ECB AES-192-CBC AES-256-CFB AES-128-OFB AES-256-CTR AES-128-GCM \
            AES-192-GCM AES-256-GCM AES-128-XTS AES-256-XTS; do
  bits=${name#AES-}; bits=${bits%%-*}
  if generated "$bits"; then
    printf '%s\n' "$list" | grep -i -q -- "$name.*@ aesgen" ||
      { echo "openssl list does not name $name at aesgen:"; printf '%s\n' "$list"; exit 1; }
  elif printf '%s\n' "$list" | grep -i -q -- "$name.*@ aesgen"; then
    echo "openssl list names $name at aesgen, whose key size was not generated"; exit 1
  fi
done
if printf '%s\n' "$list" | grep -q 'AES-192-XTS'; then
  echo "openssl list names an AES-192-XTS"; exit 1
fi
"$openssl" list -providers -provider-path "$dir" -provider aesgen | grep -q 'aes-gen provider' ||
  { echo "openssl list -providers does not show the provider's name"; exit 1; }
echo "openssl list: the ciphers at aesgen, and the provider"

# README's openssl.cnf: both providers active, aesgen preferred; a plain
# command then runs on aesgen (the module named by its path).
cat >"$tmp/openssl.cnf" <<EOF
openssl_conf = openssl_init

[openssl_init]
providers = provider_sect
alg_section = algorithm_sect

[provider_sect]
default = default_sect
aesgen = aesgen_sect

[default_sect]
activate = 1

[aesgen_sect]
module = $dir/aes_gen_provider.so
activate = 1

[algorithm_sect]
default_properties = ?provider=aesgen
EOF
key=$(od -An -tx1 -N$((first / 8)) /dev/urandom | tr -d ' \n')
iv=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
ctr=-aes-$first-ctr
OPENSSL_CONF="$tmp/openssl.cnf" "$openssl" enc $ctr -K "$key" -iv "$iv" \
  -in "$tmp/plain" -out "$tmp/ours"
"$openssl" enc $ctr -K "$key" -iv "$iv" -in "$tmp/plain" -out "$tmp/default"
cmp -s "$tmp/ours" "$tmp/default" || { echo "openssl.cnf: the ciphertexts differ"; exit 1; }
OPENSSL_CONF="$tmp/openssl.cnf" "$openssl" list -providers | grep -q 'aes-gen provider' ||
  { echo "openssl.cnf: the provider is not active"; exit 1; }
# With aesgen required (no `?`), its CTR still runs and AES-128-CFB8,
# which aesgen does not have, does not: the fetches reach aesgen.
sed 's/^default_properties = ?provider=aesgen$/default_properties = provider=aesgen/' \
  "$tmp/openssl.cnf" >"$tmp/strict.cnf"
OPENSSL_CONF="$tmp/strict.cnf" "$openssl" enc $ctr -K "$key" -iv "$iv" \
  -in "$tmp/plain" -out "$tmp/strict"
cmp -s "$tmp/strict" "$tmp/default" || { echo "openssl.cnf, aesgen required: differs"; exit 1; }
cfb8() { OPENSSL_CONF="$1" "$openssl" enc -aes-128-cfb8 -K 000102030405060708090a0b0c0d0e0f \
           -iv "$iv" -in "$tmp/plain" -out /dev/null 2>/dev/null; }
cfb8 "$tmp/openssl.cnf" || { echo "openssl.cnf, aesgen preferred: no AES-128-CFB8"; exit 1; }
if cfb8 "$tmp/strict.cnf"; then
  echo "openssl.cnf, aesgen required: AES-128-CFB8 came from elsewhere"; exit 1
fi
echo "openssl.cnf: aesgen active beside default, and preferred"

# TLS 1.2 with AES-GCM and AES-CBC through libssl: s_server and s_client
# over loopback with a pre-shared key (no certificate), a message from the
# client arriving whole; one end on aesgen (the file above), the other on
# the default provider alone, each way round, so that each direction's
# records are checked against OpenSSL's.  libssl's record layer runs GCM in
# its TLS mode (tlsivfixed, tlsaad, the explicit IV and tag in each record)
# and CBC in its own (tls-version, tls-mac-size: the provider pads, and
# unpads and takes out the MAC); a provider without them stops the
# handshake.  CBC with HMAC-SHA384 (no stitched cipher of the default
# provider takes its place) without encrypt-then-MAC has the provider take
# out the MAC; with encrypt-then-MAC (SHA256), only the padding.
psk=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
head -c 6000 "$tmp/plain" | od -An -tx1 >"$tmp/msg"
for suite in 128:PSK-AES128-GCM-SHA256:client:etm 256:PSK-AES256-GCM-SHA384:server:etm \
             128:PSK-AES128-GCM-SHA256:server:etm 256:PSK-AES256-GCM-SHA384:client:etm \
             256:PSK-AES256-CBC-SHA384:server:no_etm 256:PSK-AES256-CBC-SHA384:client:no_etm \
             128:PSK-AES128-CBC-SHA256:server:etm 128:PSK-AES128-CBC-SHA256:client:etm; do
  bits=${suite%%:*} rest=${suite#*:}
  cipher=${rest%%:*} rest=${rest#*:}
  ours=${rest%%:*} etm=${rest#*:}
  if [ "$etm" = etm ]; then etm=; else etm=-no_etm; fi
  generated "$bits" || continue
  server_conf=/dev/null client_conf=/dev/null
  if [ "$ours" = server ]; then server_conf=$tmp/openssl.cnf; else client_conf=$tmp/openssl.cnf; fi
  port=$((20000 + $(od -An -tu2 -N2 /dev/urandom | tr -d ' ') % 40000))
  # s_server ends when its stdin does: the sleep holds it open.
  (sleep 8 | OPENSSL_CONF=$server_conf timeout 20 "$openssl" s_server -quiet -tls1_2 \
     -nocert -psk "$psk" -cipher "$cipher" $etm -accept "127.0.0.1:$port" -naccept 1 \
     >"$tmp/received" 2>"$tmp/server.err") &
  server=$!
  sleep 1
  (cat "$tmp/msg"; sleep 3) | OPENSSL_CONF=$client_conf timeout 20 "$openssl" s_client \
    -quiet -tls1_2 -psk "$psk" -cipher "$cipher" $etm -connect "127.0.0.1:$port" \
    >/dev/null 2>"$tmp/client.err" || true
  wait "$server" || true
  cmp -s "$tmp/msg" "$tmp/received" ||
    { echo "TLS 1.2 $cipher${etm:+ $etm}, the $ours on aesgen: the message did not arrive"
      cat "$tmp/client.err" "$tmp/server.err"; exit 1; }
  echo "TLS 1.2 $cipher${etm:+ $etm}, the $ours on aesgen, the other end on OpenSSL's: handshake and message"
done
