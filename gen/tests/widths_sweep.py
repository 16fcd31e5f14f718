# SPDX-License-Identifier: Apache-2.0
"""Every width of every backend and mode generates or is refused with a reason.

Not named test_*: it is ctest's `generator_widths`, beside `generator`, so
the two run in parallel (/usr/bin/python3 -m unittest tests.widths_sweep
from gen/)."""

import unittest

import aesgen
import request
import targets
import variants
from variants import VariantError


def req(backends, widths, keys):
    return {"backends": list(backends), "widths": widths, "keys": list(keys)}


class EveryWidth(unittest.TestCase):
    """Every width 1..N of every (backend, parallel mode) either generates or
    is refused with the planner's reason; a width no mode of a backend holds
    is refused by validation too."""
    N = 130  # past any register file: 32 zmm registers hold 128 blocks

    def test_sweep(self):
        render = aesgen.make_renderer()
        for name, backend in variants.BACKENDS.items():
            if not backend.emitter:
                continue
            emitter = targets.emitter_of(name)
            held_by_some = set()
            for mode in (m for m in emitter.modes(backend) if m.parallel):
                held = []
                for width in range(1, self.N + 1):
                    why = targets.width_problem(name, mode, width)
                    if why:
                        self.assertIsInstance(why, str, name)
                        self.assertGreater(len(why), 20, f"{name} width {width}: '{why}'")
                        continue
                    held.append(width)
                    files = emitter.emit([variants.Variant(name, mode, 128, width)], render,
                                         backend)
                    self.assertTrue(files, f"{name} {mode.tag} width {width}")
                self.assertIn(1, held, f"{name} {mode.tag}")
                held_by_some |= set(held)
            self.assertTrue(set(backend.default_widths) <= held_by_some, name)
            refused = next((w for w in range(1, self.N + 1) if w not in held_by_some), None)
            self.assertIsNotNone(refused, f"{name}: every width up to {self.N} accepted")
            with self.assertRaises(VariantError):
                request.validate(req(["portable", "aesni", "vpaes", name],
                                     {name: [1, refused]}, [128]), targets)


if __name__ == "__main__":
    unittest.main()
