#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Mutation run: each mutant below is a small deliberate bug that once left
`make test` green.  For each, a scratch copy of the current tree (git
worktree of HEAD plus the working tree's changes) gets the mutation, is
rebuilt (regenerated first when the mutant is in the generator) and runs the
suite; a mutant is killed when some test fails.  Prints the table of which
tests killed which mutant; exits 1 if any survives.

    /usr/bin/python3 tests/mutants.py [--tests REGEX] [--only NAME]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, file, text to replace, replacement, regenerate first); consecutive
# entries of one name are one mutant (same file).
MUTANTS = (
    ("no AES-NI detection", "runtime/cpu.c",
     "    if (c & bit_AES) f |= AES_GEN_CPU_AESNI;\n", "", False),
    ("kernels' CPU needs ignored", "runtime/registry.c",
     "generated && (cpu & have) == cpu;", "generated && ((cpu & have) | 1);", False),
    ("kernels' CPU needs ignored", "runtime/registry.c",
     "(aes_gen_registry[i].cpu & have) != aes_gen_registry[i].cpu", "!have", False),
    ("CTR/OFB/CFB tail writes a whole block", "runtime/modes.c",
     "    for (size_t i = 0; i < len; i++) {\n        const uint8_t in = src[i];",
     "    for (size_t i = 0; i < 16; i++) {\n        const uint8_t in = i < len ? src[i] : 0;",
     False),
    ("kernels leave their registers", "gen/x86/skeletons.py",
     "            self.vec.zero(self.p, reg)\n", "            pass\n", True),
    ("round keys loaded with aligned movdqa", "gen/x86/vector.py",
     "        if self.bytes == 16:\n            self.load(p, src, dst)",
     "        if self.bytes == 16:\n            self.copy(p, src, dst)", True),
    ("key setup leaves key words in registers", "gen/x86/keysetup.py",
     "    for reg in (A, B, T, U, V):  # no key word stays in a register\n"
     "        p(\"pxor\", reg, reg)\n", "", True),
    ("C key setup leaves key words in registers", "runtime/api.c",
     "        aes_gen_clear_registers(); /* C may have held key words in vector registers */\n",
     "", False),
    ("T-table backend marked constant-time", "gen/variants.py",
     '"x86-64 T-table assembly, {kl}-bit key loads, {1 + t} index registers", False,',
     '"x86-64 T-table assembly, {kl}-bit key loads, {1 + t} index registers", True,', True),
    # The audit's: each once left the suite green.
    ("plaintext left in the block registers", "gen/x86/skeletons.py",
     "        for reg in sorted(set(self.plan.used()), key=lambda r: r.num):\n",
     "        for reg in sorted(set(self.plan.used()) - set(self.plan.blocks),"
     " key=lambda r: r.num):\n", True),
    ("vzeroupper removed", "gen/x86/vector.py",
     '        if self.enc != "sse" and p.dirties_upper():\n            p("vzeroupper")',
     '        if self.enc != "sse" and p.dirties_upper():\n            pass', True),
    ("CTR high-half carry dropped", "gen/x86/skeletons.py",
     '    p("add", width, lo)\n    p("adc", 0, hi)\n', '    p("add", width, lo)\n', True),
    ("a wrong valignq count", "gen/x86/vector.py",
     'p("valignq", 2 * (self.lanes - 1), prev, cur, dst)',
     'p("valignq", 2 * self.lanes - 1, prev, cur, dst)', True),
    ("a swapped vpaes table", "gen/x86/vpaes.py",
     'self.pair("sb1", VP.sb1, "S into the next tower"',
     'self.pair("sb1", VP.sb2, "S into the next tower"', True),
    ("a constant-time key's mode from a table backend", "runtime/registry.c",
     "            (other->constant_time || !own->constant_time) &&\n", "", False),
    ("a data-dependent load in the AES-NI kernels", "gen/x86/skeletons.py",
     "        for reg in regs:\n            self.vec.xor(self.p, k, reg)\n\n    def middle_rounds",
     "        for reg in regs:\n            self.vec.xor(self.p, k, reg)\n"
     "        if self.vec.enc == 'sse' and self.v.mode.parallel:\n"
     "            self.p('movq', regs[0], gp('rax'))\n"
     "            self.p('and', 63, gp('rax'))\n"
     "            self.p('mov', mem('rdi', 0, 'rax'), gp('rax'))\n"
     "            self.p('xor', gp('rax').d, gp('rax').d)\n\n    def middle_rounds", True),
    ("a padding byte left unchecked", "runtime/padding.c",
     "bad |= ct_lt(i, n) & ~", "bad |= ct_lt(i + 1, n) & ~", False),
    ("the PKCS#7 padding left in dst", "runtime/padding.c",
     "dst[i] = b[i] & (uint8_t)ct_lt(i, 16 - n);", "dst[i] = b[i] | (uint8_t)(n & 0);", False),
    ("a padding check by a secret-indexed table", "runtime/padding.c",
     "    uint64_t bad = ct_is_zero(n) | ct_lt(16, n);\n",
     "    static const uint8_t bad_n[256] = {1, [17 ... 255] = 1};\n"
     "    uint64_t bad = 0 - (uint64_t)bad_n[n];\n", False),
    ("whole-block XTS tweak left in a register", "runtime/xts.c",
     "    aes_gen_secure_zero(t, sizeof t);\n    return AES_GEN_OK;",
     "    if (!r)\n        __asm__ volatile(\"vmovdqu %0, %%xmm5\" :: \"m\"(*(uint8_t(*)[16])t) : \"xmm5\");\n"
     "    aes_gen_secure_zero(t, sizeof t);\n    return AES_GEN_OK;", False),
    ("XTS held tweaks not stepped for the last block register", "gen/x86/xts.py",
     "            for tw in tws:\n", "            for tw in tws[:-1]:\n", True),
    ("GCM tail pieces: every register takes the first power", "gen/x86/gcm.py",
     "[mem(self.power, at)], first=False)", "[mem(self.power, 0)], first=False)", True),
    ("GCM tail: the counter not advanced by its blocks", "gen/x86/gcm.py",
     "        x.add32(p, ctr.as_kind(\"xmm\"), tx, tx)\n", "", True),
    ("XTS tweak step: the carries not swapped", "gen/x86/xts.py",
     "        w.swap_halves(p, c, c)                        # the low qword's into the high one\n",
     "", True),
    ("XTS tweak step by 32: the top dword's product by 0x86 left out", "gen/x86/xts.py",
     "            w.xor(p, r, dst)\n            return\n", "            return\n", True),
    ("XTS doubling: a wrong sign shift", "gen/x86/xts.py",
     "    w.sar32(p, 31, c, c)\n", "    w.sar32(p, 30, c, c)\n", True),
    ("GCM counters: byte 15's fast path to one register past the carry", "gen/x86/gcm.py",
     'p("cmp", 256 - R * L - L, count.as_byte())', 'p("cmp", 256 - R * L, count.as_byte())',
     True),
    ("GCM tail: Y not cleared once taken (a second vector takes it again)", "gen/x86/gcm.py",
     "        x.zero(p, t)\n        x.store(p, t, state)\n", "        x.store(p, t, state)\n",
     True),
    ("GCM tail: without data, Y not folded into the lengths block", "gen/x86/gcm.py",
     "        x.xor(p, y, d)\n", "", True),
    ("GCM: the hash left beside the tag", "gen/x86/gcm.py",
     "        x.store(p, d, mem(state))      # nor the hash", "        # nor the hash", True),
    ("provider, CBC TLS records: the padding's bytes not checked", "provider/prov_tls.c",
     "        good &= ct_eq(bad, 0);", "        good &= ct_eq(bad, bad);", False),
    ("provider, CBC TLS records: a bad padding's MAC not random", "provider/prov_tls.c",
     "(random[k] & (uint8_t)~good)", "(mac[k] & (uint8_t)~good)", False),
    ("provider, CBC TLS records: the MAC not rotated into place", "provider/prov_tls.c",
     "        offset |= j & started;", "        offset |= 0 & started;", False),
    ("provider, stream modes: whole blocks taken directly mid-block", "provider/prov_ciphers.c",
     "    if (c->num == 0 && inl % AES_GEN_BLOCK_SIZE == 0) {",
     "    if (inl % AES_GEN_BLOCK_SIZE == 0) {", False),
    ("provider, CBC TLS records: the masks' value barrier removed", "provider/prov_tls.c",
     '    __asm__("" : "+r"(x));\n', "", False),
)


def run(cmd, cwd, env=None):
    return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def scratch_tree():
    """A worktree of HEAD with the working tree's uncommitted changes."""
    tmp = tempfile.mkdtemp(prefix="aes-gen-mutants-")
    tree = os.path.join(tmp, "src")
    run(["git", "worktree", "add", "--detach", tree, "HEAD"], REPO).check_returncode()
    diff = run(["git", "diff", "HEAD", "--binary"], REPO).stdout
    if diff:
        subprocess.run(["git", "apply", "--whitespace=nowarn"], cwd=tree, input=diff, text=True,
                       check=True)
    return tmp, tree


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tests", default="", help="ctest -R regex (default: the whole suite)")
    ap.add_argument("--only", help="run the mutants whose name contains this")
    args = ap.parse_args(argv)
    tmp, tree = scratch_tree()
    build = os.path.join(tmp, "build")
    rows, survivors = [], 0
    try:
        run(["cmake", "-S", tree, "-B", build, "-DCMAKE_BUILD_TYPE=Release"],
            tree).check_returncode()
        names = list(dict.fromkeys(m[0] for m in MUTANTS))
        for name in names:
            if args.only and args.only not in name:
                continue
            edits = [m for m in MUTANTS if m[0] == name]
            path, regen = edits[0][1], any(m[4] for m in edits)
            target = os.path.join(tree, path)
            with open(target, encoding="utf-8") as f:
                text = f.read()
            mutated = text
            for _, _, old, new, _ in edits:
                if old not in mutated:
                    break
                mutated = mutated.replace(old, new, 1)
            else:
                old = None
            if old is not None:
                rows.append((name, "STALE: the mutated text is gone; update tests/mutants.py"))
                survivors += 1
                continue
            with open(target, "w", encoding="utf-8") as f:
                f.write(mutated)
            try:
                if regen:
                    run(["/usr/bin/python3", "gen/aesgen.py"], tree).check_returncode()
                built = run(["cmake", "--build", build, "-j", str(os.cpu_count() or 2)], tree)
                if built.returncode:
                    rows.append((name, "killed: the build fails"))
                    continue
                cmd = ["ctest", "-j", str(os.cpu_count() or 2)] + (["-R", args.tests] if args.tests else [])
                out = run(cmd, build).stdout
                failed = re.findall(r"^\s*\d+ - (\S+) \(", out, re.M)
                if failed:
                    rows.append((name, "killed by " + ", ".join(sorted(set(failed)))))
                else:
                    rows.append((name, "SURVIVED"))
                    survivors += 1
            finally:
                with open(target, "w", encoding="utf-8") as f:
                    f.write(text)
                if regen:
                    run(["/usr/bin/python3", "gen/aesgen.py"], tree)
    finally:
        run(["git", "worktree", "remove", "--force", tree], REPO)
        shutil.rmtree(tmp, ignore_errors=True)
    width = max(len(r[0]) for r in rows) if rows else 10
    print(f"{'mutant':<{width}}  result")
    for name, result in rows:
        print(f"{name:<{width}}  {result}")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
