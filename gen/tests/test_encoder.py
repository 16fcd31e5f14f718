# SPDX-License-Identifier: Apache-2.0
"""The encoder against GNU as: every form, every register in every register
slot (0-15 legacy and VEX, 0-31 EVEX), memory operands with every base, disp8,
disp32, EVEX disp8*N, SIB with index and scale, and rip; opmasks.  All of it is
assembled in one `as` run and compared byte for byte, instruction by
instruction.  PeachPy, where it has the form, is a second opinion."""

import os
import shutil
import subprocess
import tempfile
import unittest

from x86.asm import Insn, Mem, Reg, encode, gp, k
from x86.asm.forms import FORMS, NO_OPERANDS
from x86.asm.operands import Imm

MEMS = ([Mem(gp(b), d) for b in ("rax", "rcx", "rsp", "rbp", "rsi", "rdi", "r12", "r13", "r15")
         for d in (0, 8, -16, 64, 96, 4096, -8192, 127 * 64, 128 * 64)]
        + [Mem(gp(b), 16, gp(i), s) for b, i, s in (("rax", "rbx", 1), ("rsi", "r9", 2),
                                                     ("r13", "rbp", 4), ("rsp", "r15", 8))]
        + [Mem(None, 0x40), Mem(None, -0x1234)])


def _slot_kinds(slot):
    return slot.split(":", 1)[1].split("|") if ":" in slot else []


def _reg_for(slot, size, enc, num):
    kinds = _slot_kinds(slot)
    if "k" in kinds:
        return Reg("k", num % 8)
    if "g" in kinds:
        return Reg("gp", num % 16)
    limit = 32 if enc == "evex" else 16
    kind = size if "V" in kinds else "xmm"
    return Reg(kind, num % limit)


def cases(form):
    """Operand lists (Intel order) covering every register number in every slot."""
    out = []
    for size in form.sizes:
        limit = 32 if form.enc == "evex" else 16
        reg_slots = [i for i, s in enumerate(form.slots) if s != "i" and
                     _slot_kinds(s) != ["mem"]]
        def build(nums, memop=None):
            ops = []
            for i, slot in enumerate(form.slots):
                if slot == "i":
                    ops.append(Imm(0x1B))
                elif memop is not None and i == mem_slot:
                    ops.append(memop)
                elif _slot_kinds(slot) == ["mem"]:
                    ops.append(MEMS[nums[i] % len(MEMS)])
                else:
                    ops.append(_reg_for(slot, size, form.enc, nums[i]))
            return ops
        mem_slot = next((i for i, s in enumerate(form.slots) if "mem" in _slot_kinds(s)), None)
        for pos in reg_slots or [None]:
            for num in range(limit):
                nums = [(num + 5 * j + 3) % limit for j in range(len(form.slots))]
                if pos is not None:
                    nums[pos] = num
                if form.enc == "evex" and num < 16 and all(
                        form.slots[j] == "i" or (nums[j] % limit) < 16 for j in reg_slots) \
                        and size != "zmm":
                    continue  # would be VEX-encodable: covered by the VEX form
                out.append(build(nums))
        if mem_slot is not None:
            for j, m in enumerate(MEMS):
                nums = [(j + 7 * i + (16 if form.enc == "evex" else 0)) % limit
                        for i in range(len(form.slots))]
                out.append(build(nums, m))
    return out


def insns():
    seen, result = set(), []
    for form in FORMS:
        for ops in cases(form):
            insn = Insn(form.mnemonic, tuple(reversed(ops)))
            if form.maskable and form.slots[0] == "r:V" and not form.store:
                for mask, zero in ((None, False), (k(1), True), (k(7), False)):
                    result.append(Insn(form.mnemonic, insn.operands, mask, zero))
                continue
            if insn.att() not in seen:
                seen.add(insn.att())
                result.append(insn)
    return result


def assemble(lines):
    with tempfile.TemporaryDirectory() as tmp:
        src, obj, raw = (os.path.join(tmp, n) for n in ("e.s", "e.o", "e.bin"))
        with open(src, "w") as f:
            f.write("".join(f"{line}\n" for line in lines))
        run = subprocess.run(["as", "--64", "-o", obj, src], capture_output=True, text=True)
        if run.returncode:
            raise AssertionError("GNU as rejected the listing:\n" + run.stderr[:3000])
        subprocess.run(["objcopy", "-O", "binary", "-j", ".text", obj, raw], check=True)
        with open(raw, "rb") as f:
            return f.read()


@unittest.skipUnless(shutil.which("as") and shutil.which("objcopy"), "needs GNU as and objcopy")
class EncoderAgainstGnuAs(unittest.TestCase):
    def test_every_form(self):
        todo = insns()
        ours = [i.encode() for i in todo]
        blob = assemble([i.att() for i in todo])
        off, bad = 0, []
        for insn, code in zip(todo, ours):
            theirs = blob[off:off + len(code)]
            if theirs != code:
                bad.append(f"{insn.att()}: ours {code.hex()} as {theirs.hex()}")
                break  # later offsets are meaningless after a length mismatch
            off += len(code)
        self.assertEqual(bad, [])
        self.assertEqual(off, len(blob), "as emitted more bytes than the encoder")
        forms = {(f.mnemonic, f.enc) for f in FORMS}
        print(f"\nencoder: {len(todo)} instructions over {len(forms)} (mnemonic, encoding) "
              "forms agree with GNU as")

    def test_no_operand_forms(self):
        self.assertEqual(assemble(sorted(NO_OPERANDS)),
                         b"".join(NO_OPERANDS[m] for m in sorted(NO_OPERANDS)))

    def test_a_wrong_encoding_is_caught(self):
        """The comparison itself can fail: a flipped bit must not match."""
        insn = Insn("vaesenc", (Reg("zmm", 17), Reg("zmm", 3), Reg("zmm", 25)))
        code = bytearray(insn.encode())
        code[1] ^= 0x10
        self.assertNotEqual(bytes(code), assemble([insn.att()]))


class EncoderAgainstPeachPy(unittest.TestCase):
    def test_legacy_forms(self):
        try:
            from peachpy.x86_64 import registers
            import peachpy.x86_64 as px
        except ImportError:
            self.skipTest("PeachPy not installed")
        names = ("AESENC", "AESENCLAST", "AESDEC", "AESDECLAST", "PXOR", "PSHUFB", "PADDQ",
                 "PUNPCKLQDQ", "MOVDQA", "MOVDQU")
        count = 0
        for name in names:
            for a in range(16):
                b = (a * 7 + 3) % 16
                theirs = getattr(px, name)(getattr(registers, f"xmm{b}"),
                                           getattr(registers, f"xmm{a}")).encode()
                ours = encode(name.lower(), [Reg("xmm", a), Reg("xmm", b)])
                self.assertEqual(ours, bytes(theirs), f"{name} xmm{a} -> xmm{b}")
                count += 1
        self.assertEqual(count, 16 * len(names))


if __name__ == "__main__":
    unittest.main()
