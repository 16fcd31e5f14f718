# SPDX-License-Identifier: Apache-2.0
"""Our own x86-64 encoder for the forms in forms.py: legacy SSE, VEX, EVEX.

Debian's PeachPy has no VAES ymm/zmm forms and no EVEX at all, so every AES
instruction the kernels write as .byte comes from here.  The rules are those
of the Intel SDM, volume 2, chapter 2 (ModRM/SIB, REX, VEX, EVEX and the
EVEX compressed disp8*N); where an instruction has two encodings GNU as picks
from, the encoder picks the same one, so gen/tests/test_encoder.py can compare
bytes with `as` for every form, register and addressing mode.
"""

from .forms import BY_MNEMONIC, NO_OPERANDS
from .operands import Imm, Mem, Reg


class EncodeError(ValueError):
    """No form of the mnemonic takes these operands."""


def _fits(slot, op, size):
    kinds = slot.split(":", 1)[1].split("|") if ":" in slot else []
    if slot == "i":
        return isinstance(op, Imm) and -128 <= op.value <= 255
    if isinstance(op, Mem):
        return "mem" in kinds
    if not isinstance(op, Reg):
        return False
    return (op.kind == size and "V" in kinds) or (op.kind == "xmm" and "x" in kinds) or \
        (op.kind == "gp" and "g" in kinds) or (op.kind == "k" and "k" in kinds)


def _size_of(form, intel_ops):
    """The vector size the form runs at: that of its first V slot."""
    for slot, op in zip(form.slots, intel_ops):
        if ":" in slot and "V" in slot.split(":", 1)[1].split("|") and isinstance(op, Reg) \
                and op.is_vector:
            return op.kind
    return form.sizes[0]


def _needs_evex(intel_ops, mask):
    return mask is not None or any(isinstance(op, Reg) and op.is_vector and
                                   (op.num >= 16 or op.kind == "zmm") for op in intel_ops)


def select(mnemonic, intel_ops, mask=None):
    """(form, vector size) that GNU as would use for these operands."""
    forms = BY_MNEMONIC.get(mnemonic)
    if not forms:
        raise EncodeError(f"{mnemonic}: not an instruction the encoder knows")
    evex = _needs_evex(intel_ops, mask)
    fitting = []
    for form in forms:
        if len(form.slots) != len(intel_ops) or (form.enc != "evex" and evex) or \
                (mask is not None and not form.maskable):
            continue
        size = _size_of(form, intel_ops)
        if size in form.sizes and all(_fits(s, op, size) for s, op in zip(form.slots, intel_ops)):
            fitting.append((form, size))
    if not fitting:
        raise EncodeError(f"{mnemonic}: no form takes "
                          f"{', '.join(type(op).__name__ for op in intel_ops)} here")
    form, size = fitting[0]
    # A register-to-register move fits both the load and the store form.  GNU as
    # takes the store form when that turns a 3-byte VEX prefix into a 2-byte one
    # (only the source needs REX.B); so do we.
    store = [f for f, _ in fitting if f.store and f.enc == form.enc]
    if store and form.enc == "vex" and form.map == 1 and form.w == 0:
        dst, src = intel_ops
        if isinstance(src, Reg) and isinstance(dst, Reg) and src.num >= 8 and dst.num < 8:
            form = store[0]
    return form, size


def _modrm_rm(op, n=None):
    """(mod, rm, sib+disp bytes, b bit, x bit) for the ModRM.rm operand; n is
    the EVEX disp8 scale (None: plain disp8)."""
    if isinstance(op, Reg):
        return 3, op.num & 7, b"", op.num >> 3 & 1, op.num >> 4 & 1
    if op.rip:
        return 0, 5, op.disp.to_bytes(4, "little", signed=True), 0, 0
    base, disp = op.base.num, op.disp
    scale = n or 1
    if disp == 0 and base & 7 != 5:
        mod, tail = 0, b""
    elif disp % scale == 0 and -128 <= disp // scale <= 127:
        mod, tail = 1, (disp // scale).to_bytes(1, "little", signed=True)
    else:
        mod, tail = 2, disp.to_bytes(4, "little", signed=True)
    x = 0
    if op.index is not None or base & 7 == 4:
        index = op.index.num if op.index is not None else 4
        x = index >> 3 & 1
        sib = {1: 0, 2: 1, 4: 2, 8: 3}[op.scale] << 6 | (index & 7) << 3 | base & 7
        return mod, 4, bytes([sib]) + tail, base >> 3 & 1, x
    return mod, base & 7, tail, base >> 3 & 1, 0


def encode(mnemonic, att_ops, mask=None, zero=False):
    """Bytes of `mnemonic` with operands in AT&T order (sources first)."""
    if mnemonic in NO_OPERANDS and not att_ops:
        return NO_OPERANDS[mnemonic]
    intel = list(reversed(att_ops))
    form, size = select(mnemonic, intel, mask)
    reg = vvvv = rm = imm = None
    for slot, op in zip(form.slots, intel):
        where = slot.split(":")[0]
        if where == "r":
            reg = op
        elif where == "v":
            vvvv = op
        elif where == "m":
            rm = op
        else:
            imm = op.value & 0xFF
    reg_num = form.ext if form.ext is not None else reg.num
    vl = {"xmm": 0, "ymm": 1, "zmm": 2}[size]
    n = None
    if form.enc == "evex":
        n = form.n or {"xmm": 16, "ymm": 32, "zmm": 64}[size]
    mod, rm_bits, tail, b, x = _modrm_rm(rm, n)
    modrm = bytes([mod << 6 | (reg_num & 7) << 3 | rm_bits])
    r = reg_num >> 3 & 1
    opcode = bytes([form.opcode])
    if isinstance(rm, Mem) or rm.kind == "gp":
        x_bit = x
    else:
        x_bit = 0  # a register rm keeps bit 4 in EVEX.X, below
    imm_bytes = b"" if imm is None else bytes([imm])

    if form.enc == "sse":
        prefix = {0: b"", 1: b"\x66", 2: b"\xf3", 3: b"\xf2"}[form.pp]
        rex = form.w << 3 | r << 2 | x_bit << 1 | b
        escape = {1: b"\x0f", 2: b"\x0f\x38", 3: b"\x0f\x3a"}[form.map]
        return prefix + (bytes([0x40 | rex]) if rex else b"") + escape + opcode + modrm + \
            tail + imm_bytes

    v = vvvv.num if vvvv is not None else 0
    if form.enc == "vex":
        inv_v = (~v & 15) if vvvv is not None else 15
        if form.map == 1 and not x_bit and not b and not form.w:
            head = bytes([0xC5, (1 - r) << 7 | inv_v << 3 | vl << 2 | form.pp])
        else:
            head = bytes([0xC4, (1 - r) << 7 | (1 - x_bit) << 6 | (1 - b) << 5 | form.map,
                          form.w << 7 | inv_v << 3 | vl << 2 | form.pp])
        return head + opcode + modrm + tail + imm_bytes

    r_hi = reg_num >> 4 & 1 if form.ext is None else 0
    if isinstance(rm, Reg) and rm.kind != "gp":
        x_bit = rm.num >> 4 & 1
    v_hi = v >> 4 & 1
    p0 = (1 - r) << 7 | (1 - x_bit) << 6 | (1 - b) << 5 | (1 - r_hi) << 4 | form.map
    p1 = form.w << 7 | (~v & 15) << 3 | 1 << 2 | form.pp
    aaa = mask.num if mask is not None else 0
    p2 = (1 if zero else 0) << 7 | vl << 5 | (1 - v_hi) << 3 | aaa
    return bytes([0x62, p0, p1, p2]) + opcode + modrm + tail + imm_bytes
