# SPDX-License-Identifier: Apache-2.0
"""The register planner, for 16 and 32 registers and 1, 2 or 4 lanes, and the
width limits it gives each backend (the only source of them)."""

import unittest

import targets
import variants
from x86.plan import PlanError, plan
from x86.vector import Vector


class Planner(unittest.TestCase):
    def test_blocks_to_register_and_lane(self):
        p = plan(Vector(64, 32, "evex"), 16, 14, ["chain", "tmp"])
        self.assertEqual(len(p.blocks), 4)
        self.assertEqual([(r.num, lane) for r, lane in map(p.block, range(6))],
                         [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1)])
        self.assertEqual(p.named["chain"].num, 4)
        self.assertEqual(p.named["tmp"].num, 5)
        self.assertEqual(p.spilled(), [])  # all 15 AES-256 keys fit in zmm6-31
        self.assertEqual({r.kind for r in p.used()}, {"zmm"})

    def test_spills_middle_keys_first(self):
        p = plan(Vector(16, 16, "sse"), 8, 10, ["chain", "tmp"])
        self.assertEqual(p.spilled(), [1, 2, 3, 4, 5])
        self.assertIsNotNone(p.keys[0])
        self.assertIsNotNone(p.keys[10])
        used = [r.num for r in p.used()]
        self.assertEqual(len(used), len(set(used)))

    def test_limits(self):
        with self.assertRaisesRegex(PlanError, "multiple of 2"):
            plan(Vector(32, 16, "vex"), 3, 10, ["tmp"])
        with self.assertRaisesRegex(PlanError, "more than the 16"):
            plan(Vector(16, 16, "sse"), 15, 10, ["chain", "tmp"])
        widest = plan(Vector(16, 16, "sse"), 14, 14, ["chain", "tmp"])
        self.assertEqual(widest.spilled(), list(range(15)))  # every key through tmp

    def test_backend_limits_come_from_the_planners(self):
        """The widest width each (backend, mode) holds, as its planner computes
        it (blocks + the mode's registers within the register file)."""
        def widest(name, tag, upto=130):
            return max(w for w in range(1, upto)
                       if not targets.width_problem(name, variants.MODE_BY_TAG[tag], w))
        self.assertEqual(widest("aesni", "cbc_dec"), 14)   # 14 blocks, chain, tmp: 16 xmm
        self.assertEqual(widest("aesni", "ecb_enc"), 15)   # 15 blocks, tmp
        self.assertEqual(widest("vaes256", "ctr_enc"), 28)  # 14 ymm x 2
        self.assertEqual(widest("vaes512", "ctr_enc"), 120)  # 30 zmm x 4
        self.assertEqual(widest("vaes512", "ecb_dec"), 124)
        self.assertEqual(widest("vpaes", "ctr_enc"), 2)
        self.assertEqual(widest("ttable-k64t0", "ecb_enc"), 2)
        self.assertEqual(widest("ttable-k64t2", "ecb_enc"), 1)
        # Widths that are not a multiple of the lanes run on xmm: vpaes512 up to 5.
        ctr = variants.MODE_BY_TAG["ctr_enc"]
        self.assertEqual(max(w for w in range(1, 20) if w % 4 and
                             not targets.width_problem("vpaes512", ctr, w)), 5)


if __name__ == "__main__":
    unittest.main()
