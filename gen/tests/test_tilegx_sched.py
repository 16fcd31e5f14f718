# SPDX-License-Identifier: Apache-2.0
"""The TILE-Gx bundle scheduler: its bundle rules, its dependency rules on
small programs, and the properties of the generated functions that the
interpreter (tests/test_tilegx_bundles.c) does not look at."""

import unittest

from tilegx import bundles as tilegx_asm
from tilegx import sched as ts
from variants import ROUNDS


class BundleRules(unittest.TestCase):
    def test_modes(self):
        self.assertTrue(ts.fits(["tblidxb0", "xor", "ld4u"]))    # Y0, Y1, Y2
        self.assertFalse(ts.fits(["ld4u", "ld4u"]))              # one memory pipe
        self.assertFalse(ts.fits(["mm", "xor", "xor"]))          # mm: X mode, two ops
        self.assertTrue(ts.fits(["mm", "ldna"]))                 # X0, X1
        self.assertFalse(ts.fits(["dblalign", "mm"]))            # both X0 only
        self.assertFalse(ts.fits(["ld_add", "xor", "xor"]))      # _add forms: X1 only

    def test_load_latency_and_reads_before_writes(self):
        p = ts.Program("f", ["a", "b"])
        v = p.load("ld", p.args[0], "in")
        w = p.alu("xor", v, p.args[1])
        p.store("st", p.args[1], w, "out")
        bundles = ts.build(p, ts.CALLER_SAVED)
        cycle = {op.mnemonic: op.cycle for b in bundles for op in b}
        self.assertEqual(cycle["xor"] - cycle["ld"], ts.LOAD_LATENCY)
        self.assertGreater(cycle["st"], cycle["xor"])
        self.assertIn("jrp", [op.mnemonic for op in bundles[-1]])

    def test_overwrite_may_share_the_bundle_of_the_last_read(self):
        p = ts.Program("f", ["a", "b"])
        z = p.alu("xor", p.args[0], p.args[1])         # the last plain read of a
        y = p.tied("tblidxb0", p.args[0], p.args[1])   # overwrites a
        p.store("st", y, z, "out")
        bundles = ts.build(p, ts.CALLER_SAVED)
        cycle = {op.mnemonic: op.cycle for b in bundles for op in b}
        self.assertEqual(cycle["tblidxb0"], cycle["xor"])
        self.assertEqual(cycle["xor"], 0)

    def test_out_of_registers(self):
        p = ts.Program("f", ["a"])
        vals = [p.alu("addi", p.args[0], i) for i in range(8)]
        acc = vals[0]
        for v in vals[1:]:
            acc = p.alu("xor", acc, v)
        p.store("st", p.args[0], acc, "out")
        with self.assertRaises(ValueError):
            ts.build(p, range(4))


class GeneratedFunctions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ours, cls.base = tilegx_asm.functions()

    def test_every_bundle_fits_and_names_are_unique(self):
        names = [prog.name for prog, _ in self.ours + self.base]
        self.assertEqual(len(names), len(set(names)))
        self.assertEqual(len(self.ours), 3 * 2 * len(tilegx_asm.SHAPES))
        for prog, bundles in self.ours + self.base:
            for b in bundles:
                self.assertTrue(ts.fits([op.mnemonic for op in b]), prog.name)

    def test_one_lookup_is_tblidx_and_ld4u(self):
        """The article's point: no shift, mask or add per table lookup."""
        for prog, bundles in self.ours:
            ops = [op for b in bundles for op in b]
            lookups = sum(op.kind == "tblidx" for op in ops)
            rounds = ROUNDS[int(prog.name.split("_k")[1][:3])]
            width = int(prog.name.split("crypt")[1][0])
            self.assertEqual(lookups, 16 * rounds * width, prog.name)
            self.assertEqual(sum(op.mnemonic == "ld4u" for op in ops), lookups, prog.name)

    def test_stable(self):
        again, _ = tilegx_asm.functions.__wrapped__()  # scheduled anew, not the cached result
        self.assertEqual([[op.text() for b in bundles for op in b] for _, bundles in again],
                         [[op.text() for b in bundles for op in b] for _, bundles in self.ours])


if __name__ == "__main__":
    unittest.main()
