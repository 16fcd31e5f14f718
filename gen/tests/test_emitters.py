# SPDX-License-Identifier: Apache-2.0
"""Emitters: every declared (backend, mode) has a body, output is stable and
self-contained, and the x86 skeletons hold at every vector length."""

import dataclasses
import os
import re
import shutil
import unittest

import aesgen
import request
import targets
import variants
from tests.test_encoder import assemble
from x86 import skeletons
from x86.vector import Vector

DEFAULT = {"backends": list(variants.DEFAULT_BACKENDS), "keys": [128, 192, 256],
           "widths": None}
LABEL_REF = re.compile(r"(?<![\w.])(\.L\w+)")
LABEL_DEF = re.compile(r"^(\.L\w+):", re.M)


def assembly_labels_defined(test, path, text):
    """Every local label an assembly file uses is defined in it: GNU as would
    take an undefined one as external, and only the link would fail."""
    code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    missing = set(LABEL_REF.findall(code)) - set(LABEL_DEF.findall(text))
    test.assertEqual(missing, set(), f"{path}: undefined local labels")


class Bodies(unittest.TestCase):
    def test_every_declared_pair_has_a_body(self):
        for name, backend in variants.BACKENDS.items():
            if backend.alias_of:
                self.assertTrue(variants.BACKENDS[backend.alias_of].emitter, name)
                continue
            emitter = targets.emitter_of(name)
            for mode in emitter.modes(backend):
                self.assertIn(mode.body_name, emitter.bodies, f"{name} {mode.tag}")

    def test_missing_body_is_a_clear_error_for_every_emitter(self):
        """A mode no emitter has a body for stops the generator, whichever
        emitter comes first: each one is asked through the contract."""
        extra = dataclasses.replace(variants.MODE_BY_TAG["ctr_enc"], name="ctrtest", body="ctrtest",
                                    family="ctr")
        import emitter
        saved = emitter.MODES
        emitter.MODES = saved + (extra,)
        try:
            for name, backend in variants.BACKENDS.items():
                if not backend.emitter:
                    continue
                with self.assertRaises(variants.VariantError) as cm:
                    targets.emitter_of(name).check_bodies(backend)
                self.assertIn("mode ctrtest_enc", str(cm.exception))
                self.assertIn(f"backend {name} has no body 'ctrtest'", str(cm.exception))
            with self.assertRaises(variants.VariantError):
                aesgen.generate(DEFAULT)
        finally:
            emitter.MODES = saved


    def test_a_declared_absence_is_not_a_missing_body(self):
        """An emitter may say it has no body for a mode, with a reason: the
        mode is then not generated for its backends, and nothing errs."""
        from portable import PortableEmitter
        e = PortableEmitter()
        declared = dict(e.without)
        e.without = dict(declared, ctr="for the test")
        backend = variants.BACKENDS["portable"]
        self.assertNotIn("ctr_enc", [m.tag for m in e.modes(backend)])
        e.check_bodies(backend)
        e.bodies = {k: v for k, v in e.bodies.items() if k != "ctr"}
        e.check_bodies(backend)
        e.without = declared
        with self.assertRaisesRegex(variants.VariantError, "no body 'ctr'"):
            e.check_bodies(backend)


class Output(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.files = aesgen.generate(DEFAULT)

    def test_deterministic_and_relative(self):
        self.assertEqual(aesgen.generate(DEFAULT), self.files)
        for path, text in self.files.items():
            self.assertNotIn(aesgen.REPO_DIR, text, path)
            self.assertNotRegex(text, r"20\d\d-\d\d-\d\d", path)
            first = text.splitlines()[0]
            self.assertIn("DO NOT EDIT", first if path != "manifest.json" else "DO NOT EDIT")
            if path != "manifest.json":
                self.assertNotRegex(first, "--(backends|widths|keys)",
                                    f"{path}: the request belongs in manifest.json")

    def test_a_width_change_touches_only_that_backend(self):
        other = aesgen.generate(dict(DEFAULT, widths=request.parse_widths("portable:1,2")))
        changed = {p for p in set(other) | set(self.files) if other.get(p) != self.files.get(p)}
        for path in changed:
            self.assertTrue(path.startswith("portable/") or path in (
                "manifest.json", "README.md", "kernels.h", "kernels.inc", "groups.inc",
                "aes_gen_kernels.map"), path)
        self.assertIn("portable/portable_ecb_enc.c", changed)

    def test_every_encoder_form_is_emitted(self):
        """The encoder knows the instructions the bodies emit, and only those
        (the defaults, and odd widths on xmm with EVEX registers 16-31)."""
        from x86.asm import FORMS, program
        seen, call = set(), program.Program.__call__

        def record(p, mnemonic, *ops, **kw):
            seen.add(mnemonic)
            return call(p, mnemonic, *ops, **kw)
        program.Program.__call__ = record
        try:
            aesgen.generate(DEFAULT)
            aesgen.generate(dict(DEFAULT, widths=request.parse_widths("vaes512:1,17")))
        finally:
            program.Program.__call__ = call
        self.assertEqual(sorted({f.mnemonic for f in FORMS} - seen), [])

    def test_assembly_labels_are_defined(self):
        for path, text in self.files.items():
            if path.endswith(".S"):
                assembly_labels_defined(self, path, text)

    def test_generated_lists_follow_the_declarations(self):
        modes = self.files["modes.inc"]
        for m in variants.MODES:
            self.assertIn(f"AES_GEN_MODE({m.tag},", modes)
        backends = self.files["backends.inc"]
        order = [line.split("(")[1].split(",")[0] for line in backends.splitlines()
                 if line.startswith("AES_GEN_BACKEND(")]
        self.assertEqual(order, [b.symbol for b in variants.BACKENDS.values()])


@unittest.skipUnless(shutil.which("as"), "needs GNU as")
class VectorLengths(unittest.TestCase):
    """The skeletons at 16 (VEX), 32 and 64 bytes, for every mode and key size:
    the kernels assemble, their labels resolve, and every .byte line is the
    bytes GNU as gives for its mnemonic."""

    def check(self, vec, widths):
        # aesni's kernels at another vector length need what that length needs.
        backend = dataclasses.replace(variants.BACKENDS["aesni"], isa=variants.CPU_FEATURES)
        emitter = skeletons.SkeletonEmitter({"aesni": vec})
        vs = [variants.Variant("aesni", m, bits, w)
              for m in emitter.modes(backend) for bits in variants.KEY_BITS
              for w in (widths if m.parallel else (1,))]
        emitter.file_for = lambda v: f"x86_64/t_{v.mode.tag}.S"
        files = emitter.emit(vs, aesgen.make_renderer(), backend)
        byte_lines = {}
        for path, text in files.items():
            assembly_labels_defined(self, path, text)
            assemble([text])
            for line in text.splitlines():
                m = re.match(r"\s*\.byte\s+([0-9a-fx,]+)\s+#\s+(.+?)\s*$", line)
                if m:
                    byte_lines[m.group(2)] = bytes(int(b, 16) for b in m.group(1).split(","))
        mnemonics = sorted(byte_lines)
        self.assertEqual(assemble(mnemonics), b"".join(byte_lines[m] for m in mnemonics))
        return files

    def test_vex_xmm(self):
        files = self.check(Vector(16, 16, "vex"), (1, 2, 4, 8))
        # xmm alone leaves the upper state as it was: no vzeroupper to pay.
        self.assertFalse(any("vzeroupper" in text for text in files.values()))

    def test_ymm(self):
        text = self.check(Vector(32, 16, "vex"), (1, 2, 8, 16))["x86_64/t_cbc_dec.S"]
        self.assertTrue("vperm2i128" in text and "vbroadcasti128" in text)

    def test_zmm_32_registers(self):
        files = self.check(Vector(64, 32, "evex"), (1, 4, 16, 32))
        self.assertTrue("valignq" in files["x86_64/t_cfb_dec.S"])
        # At W=32 with AES-256, blocks take zmm0-7 and keys reach beyond zmm15.
        self.assertTrue("vbroadcasti32x4 224(%rdi), %zmm10" in files["x86_64/t_ecb_enc.S"])
        self.assertTrue("%zmm23" in files["x86_64/t_ecb_enc.S"])
        self.assertTrue("vzeroupper" in files["x86_64/t_ctr_enc.S"])


if __name__ == "__main__":
    unittest.main()


class License(unittest.TestCase):
    """Every source file and every generated file names its license (SPDX)."""
    SPDX = "SPDX-License-Identifier: Apache-2.0"

    def test_generated_files(self):
        for path, text in aesgen.generate(DEFAULT).items():
            if path == "manifest.json":
                self.assertIn('"license": "Apache-2.0"', text)
            else:
                self.assertIn(self.SPDX, "\n".join(text.splitlines()[:3]), path)

    def test_source_files(self):
        root = aesgen.REPO_DIR
        missing = []
        for top in ("gen", "runtime", "tests", "bench", "cmake", ".ci", "docs"):
            for dirpath, dirs, names in os.walk(os.path.join(root, top)):
                # tests/fuzz/seeds: fuzzer inputs, binary data.
                dirs[:] = [d for d in dirs if d not in ("__pycache__", "seeds")]
                for name in names:
                    path = os.path.join(dirpath, name)
                    with open(path, encoding="utf-8") as f:
                        if self.SPDX not in f.read(400):
                            missing.append(os.path.relpath(path, root))
        for name in ("Makefile", "CMakeLists.txt"):
            with open(os.path.join(root, name), encoding="utf-8") as f:
                if self.SPDX not in f.read(400):
                    missing.append(name)
        self.assertEqual(missing, [])


class PublicApi(unittest.TestCase):
    def test_header_declares_what_the_library_exports(self):
        """aes_gen.h's functions are variants.PUBLIC_FUNCTIONS and the modes'
        public functions: the list generated/aes_gen.map exports."""
        with open(os.path.join(aesgen.REPO_DIR, "runtime", "include", "aes_gen.h")) as f:
            declared = set(re.findall(r"\b(aes_gen_[a-z_]+)\(", f.read()))
        exported = set(variants.PUBLIC_FUNCTIONS) | {m.api for m in variants.MODES if m.api}
        self.assertEqual(declared, exported)

    def test_reference_has_a_section_per_function(self):
        """docs/API.md has one `### name` section per function of aes_gen.h."""
        with open(os.path.join(aesgen.REPO_DIR, "runtime", "include", "aes_gen.h")) as f:
            declared = set(re.findall(r"\b(aes_gen_[a-z_]+)\(", f.read()))
        with open(os.path.join(aesgen.REPO_DIR, "docs", "API.md")) as f:
            sections = re.findall(r"^### `(aes_gen_[a-z_]+)`$", f.read(), re.M)
        self.assertEqual(len(sections), len(set(sections)), "a function documented twice")
        self.assertEqual(set(sections), declared)
