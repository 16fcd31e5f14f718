# SPDX-License-Identifier: Apache-2.0
"""Request validation and the variant matrix."""

import ast
import dataclasses
import os
import unittest

import variants
from variants import VariantError, build_matrix, parse_widths, validate

GEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = ["aesni", "portable"]


class Validation(unittest.TestCase):
    def error(self, backends=DEFAULT, widths=None, keys=(128, 192, 256)):
        with self.assertRaises(VariantError) as cm:
            validate(backends, widths, list(keys))
        return str(cm.exception)

    def test_zero_is_not_a_width(self):
        msg = self.error(widths=parse_widths("0"))
        self.assertIn("0 is not a width", msg)
        self.assertNotIn("include 1", msg)

    def test_width_one_is_required(self):
        self.assertIn("must include 1", self.error(widths=parse_widths("2,4")))
        self.assertIn("needs width 1", self.error(widths=parse_widths("aesni:2,4")))

    def test_limit_names_backend_and_rule(self):
        msg = self.error(widths=parse_widths("aesni:1,15"))
        self.assertIn("aesni", msg)
        self.assertIn("limit of 14", msg)
        self.assertIn("xmm registers", msg)
        # A list for every backend: each takes what it can hold; a width none
        # can hold is an error naming the widest.
        self.assertIn("exceeds every backend's limit", self.error(widths=parse_widths("1,17")))
        matrix = build_matrix(DEFAULT, parse_widths("1,3,15"), [128])
        self.assertEqual(sorted({v.width for v in matrix if v.backend == "aesni"}), [1, 3])
        self.assertEqual(variants.left_out(DEFAULT, parse_widths("1,3,15")), {"aesni": [15]})

    def test_per_backend_widths(self):
        widths = parse_widths("aesni:1,2,4,8+portable:1,2")
        validate(DEFAULT, widths, [128])
        matrix = build_matrix(DEFAULT, widths, [128])
        self.assertEqual(sorted({v.width for v in matrix if v.backend == "portable"}), [1, 2])
        self.assertEqual(sorted({v.width for v in matrix if v.backend == "aesni"}), [1, 2, 4, 8])
        # A backend not named keeps its defaults.
        matrix = build_matrix(DEFAULT, parse_widths("portable:1,3"), [128])
        self.assertEqual(sorted({v.width for v in matrix if v.backend == "aesni"}),
                         list(variants.BACKENDS["aesni"].default_widths))

    def test_per_backend_errors(self):
        self.assertIn("WIDTHS for portable", self.error(widths=parse_widths("portable:1,17")))
        self.assertIn("not among the backends",
                      self.error(["portable"], widths=parse_widths("aesni:1,2")))
        with self.assertRaisesRegex(VariantError, "BACKEND:W"):
            parse_widths("aesni:1+portable")
        with self.assertRaisesRegex(VariantError, "twice"):
            parse_widths("aesni:1+aesni:1,2")
        with self.assertRaisesRegex(VariantError, "'x' is not an integer"):
            parse_widths("1,x")

    def test_names_and_keys(self):
        self.assertIn("unknown backend 'nope'", self.error(["nope", "portable"]))
        self.assertIn("key format vpaes; none is requested", self.error(["vpaes256", "portable"]))
        self.assertIn("must include 'portable'", self.error(["aesni"]))
        self.assertIn("100 is not an AES key size", self.error(keys=[100]))
        self.assertIn("listed twice", self.error(keys=[128, 128]))
        self.assertIn("listed twice", self.error(widths=parse_widths("1,2,2")))

    def test_standards_example_generates(self):
        """make gen KEYS=192 WIDTHS=1,3 over the default backends."""
        names = variants.expand(list(variants.DEFAULT_BACKENDS))
        matrix = build_matrix(names, parse_widths("1,3"), [192])
        by_backend = {}
        for v in matrix:
            by_backend.setdefault(v.backend, set()).add(v.width)
        self.assertEqual(by_backend["vaes256"], {1, 3})   # 3 runs on xmm
        self.assertEqual(by_backend["ttable-k64t0"], {1})  # its limit is 2


class Matrix(unittest.TestCase):
    def test_registry_order(self):
        matrix = build_matrix(DEFAULT, None, [128, 256])
        # Backends in preference order, a group's widths widest first, serial modes width 1.
        self.assertEqual([v.backend for v in matrix][0], "aesni")
        groups = {}
        for v in matrix:
            groups.setdefault((v.backend, v.mode.tag, v.key_bits), []).append(v.width)
        for (backend, tag, _), widths in groups.items():
            self.assertEqual(widths, sorted(widths, reverse=True))
            self.assertEqual(widths[-1], 1)
            if not variants.MODE_BY_TAG[tag].parallel:
                self.assertEqual(widths, [1])

    def test_symbols_are_c_tokens(self):
        for b in variants.BACKENDS.values():
            self.assertTrue(b.symbol.isidentifier(), b.name)
        self.assertEqual(variants.BACKENDS["tilegx-emu"].symbol, "tilegx_emu")

    def test_modes_are_consistent(self):
        variants.validate_modes(variants.MODES)
        for m in variants.MODES:
            self.assertIn(m.schedule, ("enc", "dec"))
        ctr = variants.MODE_BY_TAG["ctr_enc"]
        bad = [dataclasses.replace(ctr, name="ctrtest"),             # no family
               dataclasses.replace(ctr, name="x", family="ctr", counter_bits=0),
               dataclasses.replace(ctr, name="y", family="ctr", tail="none")]
        for mode in bad:
            with self.assertRaises(VariantError):
                variants.validate_modes(variants.MODES + (mode,))
        variants.validate_modes(variants.MODES + (dataclasses.replace(
            ctr, name="ctrtest", family="ctr", counter_bits=64),))

    def test_variants_imports_no_emitter(self):
        with open(os.path.join(GEN, "variants.py")) as f:
            tree = ast.parse(f.read())
        imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                    if isinstance(node, (ast.Import, ast.ImportFrom))
                    for alias in (node.names if isinstance(node, ast.Import) else
                                  [ast.alias(node.module or "")])}
        self.assertLessEqual(imported, {"dataclasses"}, imported)


if __name__ == "__main__":
    unittest.main()
