# SPDX-License-Identifier: Apache-2.0
"""The declarations, request validation and the variant matrix; every width
of every backend either generates or is refused with its planner's reason."""

import ast
import dataclasses
import os
import unittest

import aesgen
import request
import targets
import variants
from request import build_matrix, parse_widths
from variants import VariantError

GEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = ["aesni", "portable"]


def req(backends=DEFAULT, widths=None, keys=(128, 192, 256)):
    return {"backends": list(backends), "widths": widths, "keys": list(keys)}


class Validation(unittest.TestCase):
    def error(self, backends=DEFAULT, widths=None, keys=(128, 192, 256)):
        with self.assertRaises(VariantError) as cm:
            request.validate(req(backends, widths, keys), targets)
        return str(cm.exception)

    def test_zero_is_not_a_width(self):
        msg = self.error(widths=parse_widths("0"))
        self.assertIn("0 is not a width", msg)
        self.assertNotIn("include 1", msg)

    def test_width_one_is_required(self):
        self.assertIn("must include width 1", self.error(widths=parse_widths("2,4")))
        self.assertIn("aesni needs width 1", self.error(widths=parse_widths("aesni:2,4")))

    def test_limit_names_backend_and_the_planners_rule(self):
        msg = self.error(widths=parse_widths("aesni:1,16"))
        self.assertIn("aesni cannot hold width 16", msg)
        self.assertIn("needs 16 xmm registers", msg)
        self.assertIn("more than the 16 there are", msg)
        # A width only some modes hold: those take it, the others are noted.
        r = req(widths=parse_widths("aesni:1,15"), keys=[128])
        matrix = build_matrix(r, targets)
        self.assertEqual({v.mode.tag for v in matrix if v.width == 15}, {"ecb_enc", "ecb_dec"})
        notes = request.left_out(targets, DEFAULT, r["widths"])
        self.assertEqual([(n, m, w) for n, m, w, _ in notes],
                         [("aesni", ["cbc_dec", "cfb_dec", "ctr_enc", "gcm_enc", "gcm_dec",
                                     "xts_enc", "xts_dec"], 15)])
        # zmm: a width that is not a multiple of 4 runs on xmm, 32 of them.
        msg = self.error(["vaes512", "aesni", "portable"], widths=parse_widths("vaes512:1,34"))
        self.assertIn("vaes512 cannot hold width 34", msg)
        self.assertIn("runs on xmm, and width 34 needs 34 xmm registers", msg)
        self.assertIn("than the 32 there are", msg)

    def test_a_list_for_every_backend_gives_each_what_it_holds(self):
        """--widths 1,27: each backend takes what it can hold, the rest is noted."""
        names = request.expand(list(variants.DEFAULT_BACKENDS))
        r = req(names, parse_widths("1,27"), [128])
        matrix = build_matrix(r, targets)
        by = {}
        for v in matrix:
            by.setdefault(v.backend, set()).add(v.width)
        self.assertEqual(by["vaes512"], {1, 27})    # on xmm, EVEX: 32 registers
        self.assertEqual(by["vaes256"], {1})        # 27 odd: xmm, 16 registers
        self.assertEqual(by["aesni"], {1})
        skipped = {n: (m, w, why) for n, m, w, why in
                   request.left_out(targets, names, r["widths"])}
        self.assertEqual(skipped["vaes256"][:2], (None, 27))
        self.assertIn("xmm registers", skipped["vaes256"][2])
        self.assertIn("portable C limit", skipped["portable"][2])
        self.assertIn("TILE-Gx block functions", skipped["tilegx-emu"][2])
        # GCM's hash registers leave 23 for blocks: only its modes leave out 27.
        self.assertEqual(skipped["vaes512"][:2], (["gcm_enc", "gcm_dec"], 27))
        self.assertIn("9 for the mode", skipped["vaes512"][2])
        # A width no backend can hold is an error naming a planner's rule.
        self.assertIn("no backend can hold width 200", self.error(widths=parse_widths("1,200")))
        self.assertIn("xmm registers", self.error(widths=parse_widths("1,200")))

    def test_the_command_line_notes_what_it_leaves_out(self):
        import contextlib
        import io
        import tempfile
        with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()) as o:
            self.assertEqual(aesgen.main(["--out", out, "--widths", "1,27", "--keys", "128"]), 0)
        self.assertIn("aesgen: note: vaes256 leaves out width 27: a width that is not a "
                      "multiple of the 2 blocks of a ymm register runs on xmm", o.getvalue())
        with contextlib.redirect_stderr(io.StringIO()) as e:
            self.assertEqual(aesgen.main(["--out", "/nonexistent", "--widths", "vaes512:1,34"]), 2)
        self.assertIn("vaes512 cannot hold width 34", e.getvalue())

    def test_per_backend_widths(self):
        widths = parse_widths("aesni:1,2,4,8+portable:1,2")
        matrix = build_matrix(req(widths=widths, keys=[128]), targets)
        self.assertEqual(sorted({v.width for v in matrix if v.backend == "portable"}), [1, 2])
        self.assertEqual(sorted({v.width for v in matrix if v.backend == "aesni"}), [1, 2, 4, 8])
        # A backend not named keeps its defaults.
        matrix = build_matrix(req(widths=parse_widths("portable:1,3"), keys=[128]),
                              targets)
        default = build_matrix(req(keys=[128]), targets)
        self.assertEqual(sorted((v.mode.tag, v.width) for v in matrix if v.backend == "aesni"),
                         sorted((v.mode.tag, v.width) for v in default if v.backend == "aesni"))

    def test_family_defaults(self):
        """A family's own default widths (vaes256's XTS stops at 8); a
        request's widths are every mode's."""
        def widths(matrix, tag):
            return sorted({v.width for v in matrix if v.backend == "vaes256" and v.mode.tag == tag})
        names = ["vaes256", "aesni", "portable"]
        matrix = build_matrix(req(names, keys=[128]), targets)
        self.assertEqual(widths(matrix, "xts_enc"), [1, 2, 4, 8])
        self.assertEqual(widths(matrix, "ctr_enc"), [1, 2, 4, 8, 16])
        matrix = build_matrix(req(names, parse_widths("vaes256:1,16"), [128]), targets)
        self.assertEqual(widths(matrix, "xts_dec"), [1, 16])
        # vaes512's XTS takes the backend's defaults (32 blocks with them).
        matrix = build_matrix(req(["vaes512", "portable"], keys=[128]), targets)
        self.assertEqual(sorted({v.width for v in matrix
                                 if v.backend == "vaes512" and v.mode.tag == "xts_enc"}),
                         [1, 4, 8, 16, 32])

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
        names = request.expand(list(variants.DEFAULT_BACKENDS))
        matrix = build_matrix(req(names, parse_widths("1,3"), [192]), targets)
        by_backend = {}
        for v in matrix:
            by_backend.setdefault(v.backend, set()).add(v.width)
        self.assertEqual(by_backend["vaes256"], {1, 3})   # 3 runs on xmm
        self.assertEqual(by_backend["ttable-k64t0"], {1})  # its limit is 2


class Matrix(unittest.TestCase):
    def test_registry_order(self):
        matrix = build_matrix(req(keys=(128, 256)), targets)
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
        variants.validate_declarations()
        for m in variants.MODES:
            self.assertIn(m.schedule, ("enc", "dec"))
        ctr = variants.MODE_BY_TAG["ctr_enc"]
        bad = [dataclasses.replace(ctr, name="ctrtest"),             # no family
               dataclasses.replace(ctr, name="x", family="ctr", counter_bits=0),
               dataclasses.replace(ctr, name="y", family="ctr", tail="none"),
               dataclasses.replace(ctr, name="z", family="ctr", shape="nope")]
        for mode in bad:
            with self.assertRaises(VariantError):
                variants.validate_declarations(variants.MODES + (mode,))
        variants.validate_declarations(variants.MODES + (dataclasses.replace(
            ctr, name="ctrtest", family="ctr", counter_bits=64),))

    def test_backend_declarations(self):
        aesni = variants.BACKENDS["aesni"]
        for bad, what in ((dataclasses.replace(aesni, isa=("sse2", "avx9")), "avx9"),
                          (dataclasses.replace(aesni, key_format="nope"), "key format nope"),
                          (dataclasses.replace(aesni, alias_of="portable"), "not both"),
                          (dataclasses.replace(aesni, mode_isa=(("gcm", ("clmul9",)),)), "clmul9"),
                          (dataclasses.replace(aesni, mode_isa=(("gmac", ("pclmul",)),)),
                           "family 'gmac'"),
                          (dataclasses.replace(aesni, family_widths=(("xts", (2, 4)),)),
                           "default widths of xts need 1"),
                          (dataclasses.replace(aesni, family_widths=(("gmac", (1,)),)),
                           "unknown family gmac")):
            with self.assertRaisesRegex(VariantError, what):
                variants.validate_declarations(backends=dict(variants.BACKENDS, aesni=bad))
        for name, b in variants.BACKENDS.items():
            if b.emitter:
                targets.emitter_of(name)  # every declared emitter is registered

    def test_variants_imports_no_emitter(self):
        for module in ("variants.py", "request.py"):
            with open(os.path.join(GEN, module)) as f:
                tree = ast.parse(f.read())
            imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                        if isinstance(node, (ast.Import, ast.ImportFrom))
                        for alias in (node.names if isinstance(node, ast.Import) else
                                      [ast.alias(node.module or "")])}
            self.assertLessEqual(imported, {"dataclasses", "variants"}, (module, imported))


if __name__ == "__main__":
    unittest.main()
