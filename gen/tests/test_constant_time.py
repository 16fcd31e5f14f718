# SPDX-License-Identifier: Apache-2.0
"""The static half of the constant-time evidence (the native half is
tests/ct_trace.c): no memory address and no branch of a generated kernel
derives from the key or the data (gen/tests/dataflow.py), for every kernel
of every backend at the default widths and at wider ones; the check reports
every T-table, portable and TILE-Gx kernel, so it can fail.  And every
AVX kernel that writes a ymm or zmm register 0-15 leaves through vzeroupper,
and no other AVX kernel runs it."""

import unittest

import aesgen
import request
import targets
import variants
from tilegx import c as tilegx_c
from x86.vector import sysv

from tests import dataflow


def kernels(widths=None):
    r = dict(request.default(), widths=widths)
    for v in request.build_matrix(r, targets):
        yield v, variants.BACKENDS[v.backend]


class StaticDataflow(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.results = {}
        for widths in (None, request.parse_widths("vaes512:1,3,12,40+vaes256:1,5,24+aesni:1,7,14"
                                                  "+vpaes512:1,5,20+portable:1,3,16")):
            for v, backend in kernels(widths):
                e = targets.emitter_of(v.backend)
                if backend.emitter == "portable":
                    found = dataflow.c_violations(e.kernel(v, backend)["body"])
                elif backend.emitter == "tilegx":
                    found = None  # checked on the block functions below
                else:
                    program = e.kernel(v, backend)["program"]
                    counter = () if v.mode.iv != "counter" else \
                        (("state", 16, 32),) if v.mode.kernel_shape.name == "gcm" else ("iv",)
                    found = dataflow.x86_violations(program, sysv(v.mode.kernel_shape), counter)
                    if "avx" in program.needs():
                        assert dataflow.exits_with_vzeroupper(program) == \
                            program.dirties_upper(), f"{v.symbol}: vzeroupper at its exit " \
                            "where it writes no ymm or zmm register 0-15, or none where it does"
                if found is not None:
                    cls.results[v.symbol] = (backend, found)

    def test_constant_time_kernels_have_no_secret_address_or_branch(self):
        checked = 0
        for symbol, (backend, found) in self.results.items():
            if backend.constant_time:
                checked += 1
                self.assertEqual(found, [], f"{symbol}: {found[:1]}")
        self.assertGreater(checked, 400)

    def test_key_setup_has_no_secret_address_or_branch(self):
        """The generated AES-NI key setups (gen/x86/keysetup.py); the same check
        sees a key word used as an index there."""
        from x86 import keysetup
        from x86.asm import gp, mem
        args = {"key": gp("rdi"), "ks": gp("rsi")}
        for flavor in keysetup.FLAVORS:
            for bits in variants.KEY_BITS:
                program = keysetup.kernel(bits, flavor)["program"]
                self.assertEqual(dataflow.x86_violations(program, args), [], (flavor, bits))
        broken = keysetup.kernel(128)["program"]
        ret = broken.items.pop()
        broken("movdqu", mem("rdi", 0), keysetup.B)
        broken("movq", keysetup.B, gp("rax"))  # a key word as an index
        broken("movdqu", mem("rsi", 0, "rax", 1), keysetup.A)
        broken.items.append(ret)
        self.assertTrue(dataflow.x86_violations(broken, args))

    def test_every_table_kernel_is_reported(self):
        reported = 0
        for symbol, (backend, found) in self.results.items():
            if not backend.constant_time:
                self.assertTrue(found, f"{symbol}: a table kernel the check does not see")
                reported += 1
        self.assertGreater(reported, 100)
        for bits in variants.KEY_BITS:
            for dec in (False, True):
                for w in tilegx_c.BLOCK_WIDTHS:
                    f = tilegx_c.block_function(bits, dec, w)
                    self.assertTrue(dataflow.c_violations(f["body"]), f["name"])

    def test_it_sees_a_secret_address_and_branch(self):
        """A key word moved to a GP register and used as an index, or compared
        and branched on, in an otherwise vector kernel; and CTR's counter
        taken as secret makes its carry paths branches on a secret."""
        from x86.asm import Program, gp, mem, xmm
        args = {"rk": gp("rdi"), "iv": gp("rsi"), "dst": gp("rdx"), "src": gp("rcx"),
                "nblocks": gp("r8")}
        p = Program("t")
        p("movdqu", mem("rdi", 16), xmm(1))
        p("movq", xmm(1), gp("rax"))
        p("pxor", mem("rcx", 0, "rax", 1), xmm(2))
        p("cmp", 3, gp("rax"))
        done = p.label("done")
        p("jb", done)
        p.place(done)
        p("ret")
        found = [why for _, why in dataflow.x86_violations(p, args)]
        self.assertTrue(any("address" in w for w in found), found)
        self.assertTrue(any("branch" in w for w in found), found)
        v = variants.Variant("aesni", variants.MODE_BY_TAG["ctr_enc"], 128, 8)
        program = targets.emitter_of("aesni").kernel(v, variants.BACKENDS["aesni"])["program"]
        self.assertEqual(dataflow.x86_violations(program, sysv(v.mode.kernel_shape), ("iv",)), [])
        self.assertTrue(dataflow.x86_violations(program, sysv(v.mode.kernel_shape)))

    def test_what_it_reports(self):
        """The first T-table lookup: an index register that holds a state byte."""
        backend, found = self.results["aes_gen_ttable_k64t0_ecb_enc_k128_w1"]
        insn, why = found[0]
        self.assertIn("depends on a secret", why)
        self.assertEqual(insn.mnemonic, "xor")
        _, found = self.results["aes_gen_portable_ctr_enc_k128_w1"]
        self.assertIn("ENC_COL of a secret", found[0][1])


if __name__ == "__main__":
    unittest.main()
