# SPDX-License-Identifier: Apache-2.0
"""An emulator for the x86-64 subset the kernel skeletons emit, run from the
generator's instruction objects.

It lets the test suite run kernels this CPU cannot (AVX-512 on a machine
without it) against a reference.  Its AES rounds are written here from
FIPS-197 (S-box from the field inverse and the affine map, ShiftRows,
MixColumns), sharing nothing with gen/aes_math.py.  Vector registers are
512-bit integers (byte i of a register is bits 8i..8i+7, as in memory);
writes follow the encodings: legacy SSE keeps the bits above 128, VEX and
EVEX clear everything above the destination's width.
"""

from dataclasses import replace

from x86.asm import GP_NAMES, Imm, Mem, Reg

MASK64 = (1 << 64) - 1


# --- AES from FIPS-197 -----------------------------------------------------

def _mul(a, b):
    p = 0
    for _ in range(8):
        if b & 1:
            p ^= a
        a = ((a << 1) ^ (0x11B if a & 0x80 else 0)) & 0xFF
        b >>= 1
    return p


def _sbox():
    inv = [0] * 256
    for a in range(1, 256):
        x = 1
        for _ in range(254):
            x = _mul(x, a)
        inv[a] = x
    box = []
    for a in range(256):
        b, s = inv[a], inv[a]
        for i in range(1, 5):
            s ^= ((b << i) | (b >> (8 - i))) & 0xFF
        box.append(s ^ 0x63)
    return box


SBOX = _sbox()
INV_SBOX = [SBOX.index(i) for i in range(256)]
assert SBOX[0x53] == 0xED and INV_SBOX[0xED] == 0x53  # FIPS-197 5.1.1, figure 7


def _shift_rows(s, inverse):
    # state byte r + 4c is row r, column c; row r rotates left by r (right to invert)
    return [s[r + 4 * ((c - r if inverse else c + r) % 4)] for c in range(4) for r in range(4)]


def _mix_columns(s, matrix):
    out = []
    for c in range(4):
        col = s[4 * c:4 * c + 4]
        for r in range(4):
            v = 0
            for i in range(4):
                v ^= _mul(matrix[(i - r) % 4], col[i])
            out.append(v)
    return out


MIX = (2, 3, 1, 1)
INV_MIX = (0xE, 0xB, 0xD, 0x9)


def aes_round(state, key, op):
    """One AES-NI round on a 16-byte lane (aesenc, aesenclast, aesdec, aesdeclast)."""
    decrypt = op.startswith("aesdec")
    s = _shift_rows(list(state), decrypt)
    s = [(INV_SBOX if decrypt else SBOX)[b] for b in s]
    if not op.endswith("last"):
        s = _mix_columns(s, INV_MIX if decrypt else MIX)
    return bytes(a ^ b for a, b in zip(s, key))


def inv_mix_columns(block):
    """aesimc: InvMixColumns of the four columns."""
    return bytes(_mix_columns(list(block), INV_MIX))


def encrypt_block(round_keys, block):
    """FIPS-197 cipher through the rounds above (for self-checks)."""
    s = bytes(a ^ b for a, b in zip(block, round_keys[0]))
    for rk in round_keys[1:-1]:
        s = aes_round(s, rk, "aesenc")
    return aes_round(s, round_keys[-1], "aesenclast")


# --- the machine ---------------------------------------------------------------

class EmulationError(Exception):
    """An instruction or operand the emulator does not model."""


class Machine:
    def __init__(self):
        self.gp = [0] * 16
        self.vec = [0] * 32
        self.k = [0] * 8
        self.cf = self.zf = False
        self.memory = {}   # base address -> bytearray
        self.consts = {}   # label -> address
        self.next_base = 1 << 32

    # memory
    def map(self, data, align=64):
        base = self.next_base
        self.next_base += (len(data) + 4096 + align) & ~(align - 1)
        self.memory[base] = bytearray(data)
        return base

    def _locate(self, addr, size):
        for base, buf in self.memory.items():
            if base <= addr and addr + size <= base + len(buf):
                return buf, addr - base
        raise EmulationError(f"access of {size} bytes at {addr:#x} outside every buffer")

    def load(self, addr, size):
        buf, off = self._locate(addr, size)
        return int.from_bytes(buf[off:off + size], "little")

    def store(self, addr, size, value):
        buf, off = self._locate(addr, size)
        buf[off:off + size] = (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")

    def address(self, m):
        if m.rip:
            return self.consts[m.label] + m.disp
        addr = self.gp[m.base.num] + m.disp
        if m.index is not None:
            addr += self.gp[m.index.num] * m.scale
        return addr & MASK64

    # operands
    def read(self, op, size):
        if isinstance(op, Imm):
            return op.value & ((1 << (8 * size)) - 1)
        if isinstance(op, Mem):
            return self.load(self.address(op), size)
        if op.kind in GP_BYTES:
            return self.gp[op.num] & ((1 << (8 * min(size, GP_BYTES[op.kind]))) - 1)
        if op.kind == "k":
            return self.k[op.num]
        return self.vec[op.num] & ((1 << (8 * size)) - 1)

    def write_vec(self, reg, value, legacy):
        bits = 8 * reg.bytes
        value &= (1 << bits) - 1
        if legacy:  # legacy SSE keeps the bits above the xmm
            value |= self.vec[reg.num] & ~((1 << bits) - 1)
        self.vec[reg.num] = value

    def write(self, op, value, size, legacy=False):
        if isinstance(op, Mem):
            self.store(self.address(op), size, value)
        elif op.kind == "gp":
            self.gp[op.num] = value & MASK64
        elif op.kind == "gp32":  # a 32-bit write clears the upper half
            self.gp[op.num] = value & 0xFFFFFFFF
        elif op.kind == "gp8":
            self.gp[op.num] = (self.gp[op.num] & ~0xFF) | (value & 0xFF)
        elif op.kind == "k":
            self.k[op.num] = value & MASK64
        else:
            self.write_vec(op, value, legacy)


GP_BYTES = {"gp": 8, "gp32": 4, "gp8": 1}


def _lanes(value, n):
    return [(value >> (128 * i)) & ((1 << 128) - 1) for i in range(n)]


def _join(lanes):
    return sum(v << (128 * i) for i, v in enumerate(lanes))


def _per_lane(a, b, n, fn):
    return _join([fn(x, y) for x, y in zip(_lanes(a, n), _lanes(b, n))])


def _aes(op, state, key, n):
    def lane(s, k):
        out = aes_round(s.to_bytes(16, "little"), k.to_bytes(16, "little"), op)
        return int.from_bytes(out, "little")
    return _per_lane(state, key, n, lane)


def _qwords(value, n):
    return [(value >> (64 * i)) & MASK64 for i in range(n)]


def _from_qwords(qs):
    return sum((q & MASK64) << (64 * i) for i, q in enumerate(qs))


def _pshufb(value, pattern, nbytes):
    src = value.to_bytes(64, "little")[:nbytes]
    pat = pattern.to_bytes(64, "little")[:nbytes]
    out = bytearray(nbytes)
    for i, p in enumerate(pat):
        lane = i // 16 * 16
        out[i] = 0 if p & 0x80 else src[lane + (p & 15)]
    return int.from_bytes(out, "little")


def _clmul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        b >>= 1
    return r


def _size(op):
    return op.bytes if isinstance(op, Reg) else None


class Emulator:
    """Runs one kernel program: run(program, consts, rk, iv, dst, src, nblocks)."""

    JUMPS = {"jb": lambda m: m.cf, "jc": lambda m: m.cf, "jae": lambda m: not m.cf,
             "jz": lambda m: m.zf, "jnz": lambda m: not m.zf,
             "ja": lambda m: not m.cf and not m.zf, "jmp": lambda m: True}

    def __init__(self, machine):
        self.m = machine
        self.steps = 0

    def run(self, items, limit=10_000_000):
        labels = {item[:-1]: i for i, item in enumerate(items) if isinstance(item, str)}
        pc = 0
        while True:
            item = items[pc]
            pc += 1
            if isinstance(item, str) or not hasattr(item, "mnemonic"):
                continue  # a label or a directive
            self.steps += 1
            if self.steps > limit:
                raise EmulationError("step limit: a loop does not end")
            if item.mnemonic == "ret":
                return
            if item.mnemonic in self.JUMPS:
                if self.JUMPS[item.mnemonic](self.m):
                    pc = labels[item.operands[0].name]
                continue
            self.execute(item)

    def execute(self, insn):
        m, ops, name = self.m, insn.operands, insn.mnemonic
        if name == "vmovdqu8":
            return self.masked_move(insn)
        if insn.mask is not None:
            if name != "vpshufd" or not insn.zero:
                raise EmulationError(f"{insn.att()}: opmasks are modelled for vmovdqu8 and "
                                     "zero-masked vpshufd only")
            return self.zero_masked_dwords(insn)
        legacy = not name.startswith("v")
        if name in INTEGER:
            return self.integer(name, ops)
        if name == "kmovq":
            return m.write(ops[1], m.read(ops[0], 8), 8)
        if name == "vzeroupper":
            for i in range(16):
                m.vec[i] &= (1 << 128) - 1
            return
        dst = ops[-1]
        width = _size(dst) or _size(ops[0]) or 16
        if name in ("movdqu", "movdqa", "vmovdqu", "vmovdqa", "vmovdqu64", "vmovdqa64"):
            size = _size(dst) if isinstance(dst, Reg) else _size(ops[0])
            return m.write(dst, m.read(ops[0], size), size, legacy)
        if name in ("vbroadcasti128", "vbroadcasti32x4"):
            lane = m.read(ops[0], 16)
            return m.write(dst, _join([lane] * (dst.bytes // 16)), dst.bytes)
        if name in ("vextracti128", "vextracti32x4"):
            imm, src = ops[0].value, ops[1]
            return m.write(dst, _lanes(m.vec[src.num], 4)[imm], 16)
        if name in ("movq", "vmovq"):  # zero-extends to 128 bits
            return m.write(dst, m.read(ops[0], 8), 16, legacy)
        if name == "punpcklqdq":
            lo = _qwords(m.vec[dst.num], 2)[0]
            hi = _qwords(m.read(ops[0], 16), 2)[0]
            return m.write(dst, _from_qwords([lo, hi]), 16, legacy=True)
        if name == "vpinsrq":
            imm, g, src = ops[0].value, ops[1], ops[2]
            qs = _qwords(m.vec[src.num], 2)
            qs[imm] = m.read(g, 8)
            return m.write(dst, _from_qwords(qs), 16)
        if name in ("vinserti128", "vinserti32x4"):
            imm, x, src = ops[0].value, ops[1], ops[2]
            lanes = _lanes(m.vec[src.num], dst.bytes // 16)
            lanes[imm] = m.read(x, 16)
            return m.write(dst, _join(lanes), dst.bytes)
        if name == "vshufi64x2":
            imm, b, a = ops[0].value, m.vec[ops[1].num], m.vec[ops[2].num]
            n = dst.bytes // 16
            bits = 2 if n == 4 else 1
            pick = [(imm >> (bits * i)) & ((1 << bits) - 1) for i in range(n)]
            lanes_a, lanes_b = _lanes(a, n), _lanes(b, n)
            return m.write(dst, _join([(lanes_a if i < n // 2 else lanes_b)[pick[i]]
                                       for i in range(n)]), dst.bytes)
        if name == "vperm2i128":
            imm, b, a = ops[0].value, m.read(ops[1], 32), m.vec[ops[2].num]
            choices = _lanes(a, 2) + _lanes(b, 2)
            sel = [choices[imm & 3], choices[(imm >> 4) & 3]]
            return m.write(dst, _join(sel), 32)
        if name == "valignq":
            imm, low, high = ops[0].value, m.read(ops[1], dst.bytes), m.vec[ops[2].num]
            n = dst.bytes // 8
            qs = _qwords(low, n) + _qwords(high, n)
            return m.write(dst, _from_qwords(qs[imm:imm + n]), dst.bytes)
        if name in ("pshufd", "vpshufd"):
            imm, src = ops[0].value, m.read(ops[1], dst.bytes)
            words = [(src >> (32 * i)) & 0xFFFFFFFF for i in range(dst.bytes // 4)]
            out = [words[4 * (i // 4) + (imm >> (2 * (i % 4)) & 3)] for i in range(len(words))]
            return m.write(dst, sum(w << (32 * i) for i, w in enumerate(out)), dst.bytes, legacy)
        if name in ("shufps", "vshufps"):  # dwords imm[1:0], imm[3:2] of a, imm[5:4], imm[7:6] of b
            imm, src = ops[0].value, m.read(ops[1], 16)
            first = m.vec[(dst if legacy else ops[2]).num]
            d = [(first >> (32 * i)) & 0xFFFFFFFF for i in range(4)]
            s = [(src >> (32 * i)) & 0xFFFFFFFF for i in range(4)]
            out = [d[imm & 3], d[imm >> 2 & 3], s[imm >> 4 & 3], s[imm >> 6 & 3]]
            return m.write(dst, sum(w << (32 * i) for i, w in enumerate(out)), 16, legacy)
        if name in ("aesimc", "vaesimc"):
            out = inv_mix_columns(m.read(ops[0], 16).to_bytes(16, "little"))
            return m.write(dst, int.from_bytes(out, "little"), 16, legacy)
        if name in ("pclmulqdq", "vpclmulqdq"):
            imm = ops[0].value
            if legacy:  # pclmulqdq imm, src2, dst(= src1)
                src2, src1 = m.read(ops[1], 16), m.vec[dst.num] & ((1 << 128) - 1)
            else:
                src2, src1 = m.read(ops[1], dst.bytes), m.vec[ops[2].num]
            n = dst.bytes // 16
            a, b = _lanes(src1, n), _lanes(src2, n)
            out = [_clmul(_qwords(x, 2)[imm & 1], _qwords(y, 2)[imm >> 4 & 1])
                   for x, y in zip(a, b)]
            return m.write(dst, _join(out), dst.bytes, legacy)
        if name == "vpternlogq":
            imm, c, b, a = ops[0].value, m.read(ops[1], dst.bytes), m.vec[ops[2].num], \
                m.vec[dst.num]
            bits = 8 * dst.bytes
            r = 0
            for i in range(bits):
                idx = (a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1)
                r |= (imm >> idx & 1) << i
            return m.write(dst, r, dst.bytes)
        if name in ("psrlq", "vpsrlq", "psllq", "vpsllq"):
            n, src = ops[0].value, (dst if legacy else ops[1])
            v = m.read(src, width) if not legacy else m.vec[src.num]
            v &= (1 << (8 * width)) - 1
            left = "sll" in name
            qs = [(v >> (64 * i)) & ((1 << 64) - 1) for i in range(width // 8)]
            qs = [((q << n) & ((1 << 64) - 1) if left else q >> n) if n < 64 else 0 for q in qs]
            return m.write(dst, sum(q << (64 * i) for i, q in enumerate(qs)), width, legacy)
        if name in ("vpsllvq", "vpsrlvq"):  # counts, src, dst: a count per qword
            counts, v = m.read(ops[0], width), m.read(ops[1], width)
            q = lambda x, i: (x >> (64 * i)) & ((1 << 64) - 1)
            qs = [(q(v, i) << q(counts, i) if "sll" in name else q(v, i) >> q(counts, i))
                  & ((1 << 64) - 1) if q(counts, i) < 64 else 0 for i in range(width // 8)]
            return m.write(dst, sum(x << (64 * i) for i, x in enumerate(qs)), width)
        if name in ("pslldq", "vpslldq", "psrldq", "vpsrldq"):
            n, src = ops[0].value, (dst if legacy else ops[1])
            v = m.read(src, width) if not legacy else m.vec[src.num]
            lanes = [(v >> (128 * i)) & ((1 << 128) - 1) for i in range(width // 16)]
            up = "sll" in name
            lanes = [((x << (8 * n)) & ((1 << 128) - 1) if up else x >> (8 * n)) if n < 16 else 0
                     for x in lanes]
            return m.write(dst, sum(x << (128 * i) for i, x in enumerate(lanes)), width, legacy)
        if name in ("psrld", "vpsrld", "psrad", "vpsrad"):
            n, src = ops[0].value, (dst if legacy else ops[1])
            v = m.vec[src.num] & ((1 << (8 * width)) - 1)
            words = [(v >> (32 * i)) & 0xFFFFFFFF for i in range(width // 4)]
            if "sra" in name:  # the sign fills in; past 31 bits, all sign
                words = [w - (1 << 32) if w >> 31 else w for w in words]
                r = sum(((w >> min(n, 31)) & 0xFFFFFFFF) << (32 * i) for i, w in enumerate(words))
            else:
                r = sum(((w >> n) if n < 32 else 0) << (32 * i) for i, w in enumerate(words))
            return m.write(dst, r, width, legacy)
        # two-operand (SSE) or three-operand (VEX/EVEX) arithmetic
        if legacy and isinstance(ops[0], Mem) and m.address(ops[0]) % 16:
            raise EmulationError(f"{insn.att()}: legacy SSE memory operand not 16-byte aligned")
        if legacy:
            a, b = m.read(ops[0], 16), m.vec[dst.num] & ((1 << 128) - 1)
        else:
            a, b = m.read(ops[0], width), m.vec[ops[1].num] & ((1 << (8 * width)) - 1)
        base = name[1:] if name.startswith("v") else name
        n = width // 16
        if base in ("pxor", "pxord"):
            r = a ^ b
        elif base in ("pand", "pandq"):
            r = a & b
        elif base in ("pandn", "pandnq"):   # ~(second source, or dst) & first
            r = ~b & a & ((1 << (8 * width)) - 1)
        elif base == "paddd":
            words = lambda v: [(v >> (32 * i)) & 0xFFFFFFFF for i in range(width // 4)]
            r = sum(((x + y) & 0xFFFFFFFF) << (32 * i)
                    for i, (x, y) in enumerate(zip(words(b), words(a))))
        elif base == "paddq":
            r = _from_qwords([x + y for x, y in zip(_qwords(b, 2 * n), _qwords(a, 2 * n))])
        elif base == "pshufb":
            r = _pshufb(b, a, width)
        elif base in ("aesenc", "aesenclast", "aesdec", "aesdeclast"):
            r = _aes(base, b, a, n)
        else:
            raise EmulationError(f"{insn.att()}: not modelled")
        m.write(dst, r, width, legacy)

    def zero_masked_dwords(self, insn):
        """A dword instruction with {z}: dword i kept where opmask bit i is set."""
        m, dst = self.m, insn.operands[-1]
        self.execute(replace(insn, mask=None, zero=False))
        mask, value = m.k[insn.mask.num], m.vec[dst.num]
        kept = sum(0xFFFFFFFF << 32 * i for i in range(dst.bytes // 4) if mask >> i & 1)
        m.write(dst, value & kept, dst.bytes)

    def masked_move(self, insn):
        """vmovdqu8 with an opmask (byte i moves if bit i is set; {z} zeros
        the others, else they keep dst's): masked-off bytes are not accessed."""
        m, (src, dst) = self.m, insn.operands
        nbytes = (dst if isinstance(dst, Reg) else src).bytes
        mask = m.k[insn.mask.num] if insn.mask is not None else MASK64
        if isinstance(src, Mem):
            base = m.address(src)
            value = sum(m.load(base + i, 1) << (8 * i) for i in range(nbytes) if mask >> i & 1)
        else:
            value = m.vec[src.num]
        if isinstance(dst, Mem):
            base = m.address(dst)
            for i in range(nbytes):
                if mask >> i & 1:
                    m.store(base + i, 1, value >> (8 * i))
            return
        keep = 0 if insn.zero else m.vec[dst.num]
        out = 0
        for i in range(nbytes):
            byte = (value if mask >> i & 1 else keep) >> (8 * i) & 0xFF
            out |= byte << (8 * i)
        m.write_vec(dst, out, legacy=False)

    def integer(self, name, ops):
        m = self.m
        if name == "bswap":
            r = ops[0]
            size = GP_BYTES[r.kind]
            m.write(r, int.from_bytes(m.read(r, size).to_bytes(size, "little"), "big"), size)
            return
        if name == "lea":
            return m.write(ops[1], m.address(ops[0]), 8)
        if name == "neg":
            m.gp[ops[0].num] = -m.gp[ops[0].num] & MASK64
            return
        dst_op = ops[-1]
        size = GP_BYTES.get(dst_op.kind, 8) if isinstance(dst_op, Reg) else \
            GP_BYTES.get(ops[0].kind, 8) if isinstance(ops[0], Reg) else 8
        if name == "movzbq":
            return m.write(dst_op, m.read(ops[0], 1), 8)
        src, dst = m.read(ops[0], size), m.read(dst_op, size)
        full = (1 << (8 * size)) - 1
        if name == "mov":
            return m.write(dst_op, src, size)
        if name in ("add", "adc"):
            r = dst + src + (1 if name == "adc" and m.cf else 0)
            m.cf, r = r > full, r & full
        elif name in ("sub", "cmp"):
            m.cf, r = src > dst, (dst - src) & full
        elif name in ("shr", "shl"):
            r = (dst >> src if name == "shr" else dst << src) & full
        elif name in ("bts", "btr"):
            bit = src % (8 * size)
            m.cf = bool(dst >> bit & 1)
            r = dst | 1 << bit if name == "bts" else dst & ~(1 << bit)
            return m.write(dst_op, r, size)
        elif name == "xor":
            r = dst ^ src
            m.cf = False
        else:  # test
            r = dst & src
            m.cf = False
        m.zf = r == 0
        if name not in ("cmp", "test"):
            m.write(dst_op, r, size)


INTEGER = ("mov", "add", "sub", "adc", "cmp", "test", "bswap", "lea", "neg", "shr", "shl",
           "bts", "btr", "xor", "movzbq")


def run_kernel(context, shape, args):
    """Emulate one kernel (an emitter's kernel() context) whose arguments are
    `shape`'s (gen/variants.py SHAPES): args maps each parameter to bytes (a
    buffer: its contents before the call) or an int (a count).  dst is given
    by its contents too and has guard bytes either side that must stay
    untouched.  Returns {name: bytes after the call} for every buffer."""
    m = Machine()
    for const in context["consts"]:
        data = b"".join((int(v, 0) & MASK64).to_bytes(8, "little")
                        for line in const.lines for v in line.split(None, 1)[1].split(","))
        m.consts[const.name] = m.map(data)
    guard = b"\xa5" * 64
    where = {}
    m.gp[GP_NAMES.index("rsp")] = m.map(bytes(4096)) + 2048  # the red zone below it
    for name, reg in zip(shape.names, ARG_REGS):
        value = args[name]
        if isinstance(value, int):
            m.gp[GP_NAMES.index(reg)] = value
            continue
        where[name] = m.map(guard + value + guard) + 64 if name == "dst" else m.map(value)
        m.gp[GP_NAMES.index(reg)] = where[name]
    Emulator(m).run(context["program"].items)
    out = {}
    for name, at in where.items():
        mem_ = m.memory[at - 64] if name == "dst" else m.memory[at]
        if name == "dst":
            assert mem_[:64] == guard and mem_[-64:] == guard, "write outside dst"
            mem_ = mem_[64:-64]
        out[name] = bytes(mem_)
    return out


# The SysV integer argument registers, in order.
ARG_REGS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
