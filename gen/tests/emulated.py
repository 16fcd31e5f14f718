# SPDX-License-Identifier: Apache-2.0
"""The x86 kernels run on an emulator (gen/tests/x86emu.py) against a
reference, so that kernels this CPU cannot run (vaes512 without AVX-512) are
still executed by the suite.  aesni and vaes256 kernels, which the C suites
also run on the hardware, are emulated too: they check the emulator itself.
Each backend runs at the widths below and at those of the committed
generation (generated/manifest.json), so a `make gen WIDTHS=...` is emulated
too; AES_GEN_EMU_WIDE=1 adds the widest each backend can hold.

Not named test_*: it is ctest's `generator_emulated`, beside `generator`, so
the two run in parallel (/usr/bin/python3 -m unittest tests.emulated from
gen/)."""

import json
import os
import random
import unittest

import aes_math
import targets
import variants
from tests import x86emu

# Every parallel-mode width of the defaults plus non-default ones.
WIDTHS = {"vaes512": (1, 4, 8, 12, 16, 32), "vaes256": (1, 2, 4, 6, 8, 16), "aesni": (1, 2, 3, 8),
          "aesni-avx": (1, 3, 8, 12),
          "vpaes512": (1, 3, 4, 5, 8, 20), "vpaes256": (1, 2, 4), "vpaes": (1, 2)}
MANIFEST = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "generated", "manifest.json")


def widest(name, mode):
    """The widest width the backend's planner holds for the mode."""
    width = 1
    while not targets.width_problem(name, mode, width + 1):
        width += 1
    return width


def widths_of(name, mode):
    """WIDTHS[name], the committed generation's and, with AES_GEN_EMU_WIDE, the
    widest: those the mode's kernel holds."""
    out = set(WIDTHS[name])
    try:
        with open(MANIFEST, encoding="utf-8") as f:
            out |= {k["width"] for k in json.load(f)["kernels"]
                    if k["backend"] == name and k["mode_tag"] == mode.tag}
    except OSError:
        pass
    if os.environ.get("AES_GEN_EMU_WIDE"):
        out.add(widest(name, mode))
    return sorted(w for w in out if not targets.width_problem(name, mode, w))


def xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


def reference(mode, key, iv, src):
    """SP 800-38A through aes_math's T-table cipher (self-checked against FIPS-197)."""
    enc = lambda b: aes_math.ttable_encrypt_block(key, b)
    dec = lambda b: aes_math.ttable_decrypt_block(key, b)
    if mode.sp800_38a == "xts":
        return aes_math.xts_blocks(key, iv, src, mode.direction == "dec")
    blocks = [src[i:i + 16] for i in range(0, len(src), 16)]
    out, chain = [], iv
    for b in blocks:
        if mode.sp800_38a == "ecb":
            out.append(dec(b) if mode.direction == "dec" else enc(b))
        elif mode.sp800_38a == "cbc":
            if mode.direction == "dec":
                out.append(xor(dec(b), chain))
                chain = b
            else:
                chain = enc(xor(b, chain))
                out.append(chain)
        elif mode.sp800_38a == "cfb":
            c = xor(enc(chain), b)
            out.append(c)
            chain = b if mode.direction == "dec" else c
        elif mode.sp800_38a == "ofb":
            chain = enc(chain)
            out.append(xor(chain, b))
        else:
            out.append(xor(enc(chain), b))
            span = mode.counter_bits // 8
            low = (int.from_bytes(chain[16 - span:], "big") + 1) % (1 << mode.counter_bits)
            chain = chain[:16 - span] + low.to_bytes(span, "big")
    return b"".join(out), chain


def gcm_table(key, powers=64):
    """aes_gen_gcm_key's hash-key table for key: H^k * x^-1 at 16 (64 - k), then
    each one's halves XORed, in both halves."""
    h = int.from_bytes(aes_math.ttable_encrypt_block(key, bytes(16)), "big")
    table = bytearray(2 * 16 * powers)
    p = h
    for k in range(1, powers + 1):
        stored = aes_math.ghash_key(p)
        at = 16 * (powers - k)
        table[at:at + 16] = stored.to_bytes(16, "little")
        half = (stored ^ stored >> 64) & ((1 << 64) - 1)
        table[16 * powers + at:16 * powers + at + 16] = (half | half << 64).to_bytes(16, "little")
        p = aes_math.gf128_mul(p, h)
    return bytes(table) + bytes(48), h  # aes_gen_gcm_key's padding after the table


def gcm_reference(mode, key, h, state, src, last):
    """(dst, state after): GCTR from the state's counter (inc32), and the
    hash continued over the ciphertext (a partial block zero-padded); last:
    then the lengths block at state + 48, the tag E(J0) ^ hash there, and
    J0 at state + 32 and the hash zeroed."""
    y, ctr = int.from_bytes(state[:16], "little"), state[16:32]
    out = bytearray()
    for i in range(0, len(src), 16):
        ks = aes_math.ttable_encrypt_block(key, ctr)
        out += bytes(a ^ b for a, b in zip(src[i:i + 16], ks))
        ctr = aes_math.gcm_inc32(ctr)
    cipher = src if mode.direction == "dec" else bytes(out)
    for i in range(0, len(cipher), 16):
        y = aes_math.gf128_mul(y ^ int.from_bytes(cipher[i:i + 16].ljust(16, b"\0"), "big"), h)
    tail = state[32:]
    if last:
        y = aes_math.gf128_mul(y ^ int.from_bytes(state[48:64], "big"), h)
        ek0 = aes_math.ttable_encrypt_block(key, state[32:48])
        tail = bytes(16) + xor(y.to_bytes(16, "big"), ek0)
        y = 0
    return bytes(out), y.to_bytes(16, "little") + ctr + tail


def gcm_lengths(width):
    """Byte counts (and AES_GEN_GCM_LAST) that reach every part of a GCM
    kernel: groups, the tail's vectors, one block, a partial block, nothing."""
    group = 16 * width
    return ((2 * group, False), (2 * group + 16 * 3 + 5, True), (group - 1, True),
            (group + 16, False), (7, True), (0, True))


def round_keys(mode, key, key_format="fips"):
    rks = aes_math.expand_key(key)
    if mode.schedule == "dec":
        rks = aes_math.equivalent_inverse_keys(rks)
    if key_format == "vpaes":
        rks = aes_math.VPAES.round_keys(rks, mode.schedule == "dec")
    return bytes(b for rk in rks for b in rk)


def counters(width, rng):
    """Counter blocks that take each path of the CTR skeleton in a two-group run:
    byte 15 far from a wrap, a wrap of byte 15 in the second group, the low qword
    wrapping inside a group, and the 2^128 wrap."""
    base = bytes(rng.randrange(256) for _ in range(16))
    yield base[:15] + b"\x00"
    yield base[:15] + bytes([max(0, 255 - width - width // 2)])
    yield base[:8] + b"\xff" * 7 + bytes([256 - max(1, width // 2)])
    yield b"\xff" * 15 + bytes([256 - max(1, width // 2)])


class Emulated(unittest.TestCase):
    def test_emulator_aes_against_fips197(self):
        rks = [bytes(rk) for rk in aes_math.expand_key(bytes(range(16)))]
        out = x86emu.encrypt_block(rks, bytes.fromhex("00112233445566778899aabbccddeeff"))
        self.assertEqual(out.hex(), "69c4e0d86a7b0430d8cdb78070b4c55a")

    def check_backend(self, name):
        backend = variants.BACKENDS[name]
        emitter = targets.emitter_of(name)
        rng = random.Random(0x5EED2026)
        count = 0
        for mode in emitter.modes(backend):
            for bits in variants.KEY_BITS:
                for width in (widths_of(name, mode) if mode.parallel else (1,)):
                    v = variants.Variant(name, mode, bits, width)
                    ctx = emitter.kernel(v, backend)
                    key = bytes(rng.randrange(256) for _ in range(bits // 8))
                    n = 2 * width if mode.parallel else 3
                    src = bytes(rng.randrange(256) for _ in range(16 * n))
                    ivs = list(counters(width, rng)) if mode.iv == "counter" else \
                        [bytes(rng.randrange(256) for _ in range(16))]
                    if mode.kernel_shape.name == "gcm":
                        table, h = gcm_table(key)
                        cases = [(iv, 2 * width * 16, False) for iv in ivs] + \
                            [(ivs[0], n_, last) for n_, last in gcm_lengths(width)]
                        for iv, nbytes, last in cases:
                            data = bytes(rng.randrange(256) for _ in range(nbytes))
                            state = bytes(rng.randrange(256) for _ in range(16)) + iv + \
                                bytes(rng.randrange(256) for _ in range(32))
                            out = x86emu.run_kernel(ctx, mode.kernel_shape, {
                                "rk": round_keys(mode, key), "htable": table, "state": state,
                                "dst": bytes(nbytes), "src": data,
                                "len": nbytes | (1 << 63 if last else 0)})
                            want, want_state = gcm_reference(mode, key, h, state, data, last)
                            what = f"{v.symbol} len {nbytes}{' last' if last else ''}"
                            self.assertEqual(out["dst"].hex(), want.hex(), f"{what}: dst")
                            self.assertEqual(out["state"][:32].hex(), want_state[:32].hex(),
                                             f"{what}: hash, counter")
                            self.assertEqual(out["state"].hex(), want_state.hex(),
                                             f"{what}: the tag")
                        count += 1
                        continue
                    for iv in ivs:
                        out = x86emu.run_kernel(ctx, mode.kernel_shape, {
                            "rk": round_keys(mode, key, backend.key_format), "iv": iv,
                            "dst": bytes(len(src)), "src": src, "nblocks": n})
                        want, want_iv = reference(mode, key, iv, src)
                        self.assertEqual(out["dst"].hex(), want.hex(), f"{v.symbol} iv {iv.hex()}")
                        if mode.iv != "none":
                            self.assertEqual(out["iv"].hex(), want_iv.hex(), f"{v.symbol} iv out")
                    count += 1
        return count

    def test_aesni_key_setup(self):
        """The generated key setup against aes_math's FIPS-197 expansion and
        equivalent inverse keys, every key size, random keys."""
        from types import SimpleNamespace
        from x86 import keysetup
        rng = random.Random(1197)
        for flavor, bits in ((f, b) for f in keysetup.FLAVORS for b in (128, 192, 256)):
            context = keysetup.kernel(bits, flavor)
            rounds = bits // 32 + 6
            for _ in range(3):
                key = bytes(rng.randrange(256) for _ in range(bits // 8))
                out = x86emu.run_kernel(context, SimpleNamespace(names=("key", "dst")),
                                        {"key": key, "dst": b"\xff" * (keysetup.ZERO_TO + 16)})
                out = out["dst"]
                enc = aes_math.expand_key(key)
                dec = aes_math.equivalent_inverse_keys(enc)
                n, d = 16 * (rounds + 1), keysetup.DEC_OFFSET
                self.assertEqual(out[:n], bytes(sum(enc, [])), (flavor, bits))
                self.assertEqual(out[d:d + n], bytes(sum(dec, [])), (flavor, bits))
                # Zeros over the 0xff before, to ZERO_TO; nothing written past it.
                self.assertEqual(out[n:d], bytes(d - n), (flavor, bits))
                self.assertEqual(out[d + n:keysetup.ZERO_TO], bytes(keysetup.ZERO_TO - d - n))
                self.assertEqual(out[keysetup.ZERO_TO:], b"\xff" * 16, (flavor, bits))

    def test_vaes512(self):
        self.assertGreater(self.check_backend("vaes512"), 0)

    def test_vaes256(self):
        self.assertGreater(self.check_backend("vaes256"), 0)

    def test_aesni(self):
        self.assertGreater(self.check_backend("aesni"), 0)

    def test_aesni_avx(self):
        self.assertGreater(self.check_backend("aesni-avx"), 0)

    def test_vpaes(self):
        self.assertGreater(self.check_backend("vpaes"), 0)

    def test_vpaes256(self):
        self.assertGreater(self.check_backend("vpaes256"), 0)

    def test_vpaes512(self):
        self.assertGreater(self.check_backend("vpaes512"), 0)


if __name__ == "__main__":
    unittest.main()
