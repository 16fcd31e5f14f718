# SPDX-License-Identifier: Apache-2.0
"""vpaes / vpaes256 / vpaes512: vector-permutation AES (Hamburg) on xmm
(SSSE3), ymm (AVX2: 2 blocks per register) and zmm (AVX-512BW: 4 per
register).  Constant-time: pshufb lookups of 4-bit indices in 16-byte tables
held in registers or read whole, no secret-dependent address or branch.

The representation, the inversion from nibble lookups and every table come
from aes_math.VPAES (derived there from the field).  A round on each block
register s, with four temporaries h, x, y, z:
    h = i (high nibbles), s = k (low nibbles)      pandn, psrld, pand
    x = a/k, s = j = i ^ k, y = 1/i ^ a/k, z = 1/j ^ a/k
    x = io = 1/y ^ j, y = jo = 1/z ^ i              5 pshufb
  encryption:  A = sb1(io, jo), 2A = sb2(io, jo)    4 pshufb
               s = 2A ^ B ^ R(2A ^ B) ^ D ^ key     3 pshufb (B, D, R: column
                                                    rotations for this round)
  decryption:  acc = R(R(R(9X) ^ 13X) ^ 11X) ^ 14X ^ key (X = dsb(io, jo))
The mode bodies are the shared skeletons' parallel ones and, for the serial
modes, the plain ones below (the AES-NI bodies fold keys into aesenclast).

Tables: SSE reads each from memory into the register it is about to shuffle
(legacy pshufb overwrites its table, so the copy is needed anyway); VEX and
EVEX keep the 0x0F mask, 1/x and a/x in registers and load the other tables
once per round into one register for all blocks.  The round keys (the vpaes
key format, runtime/key_schedule.c) are 16 bytes per round, broadcast per use.
"""

import aes_math

from . import skeletons
from .asm import Const, mem, rip
from .plan import Plan, PlanError, block_registers
from .skeletons import TMP_ROLE, SkeletonEmitter, block_role
from .vector import Vector, sysv_note

VECTORS = {"vpaes": Vector(16, 16, "sse"), "vpaes256": Vector(32, 16, "vex"),
           "vpaes512": Vector(64, 32, "evex")}
TEMPS = ("h", "x", "y", "z")
VP = aes_math.VPAES


def _quads(data, lanes):
    """16 bytes as .quad lines, repeated per lane (VEX/EVEX read whole vectors)."""
    lo = int.from_bytes(bytes(data[:8]), "little")
    hi = int.from_bytes(bytes(data[8:]), "little")
    return (f".quad 0x{lo:016x}, 0x{hi:016x}",) * lanes


class VpaesKernel(skeletons.Kernel):
    @classmethod
    def plan_for(cls, v, vec, roles):
        return _plan(vec, 0 if not v.mode.parallel else v.width, v.rounds, roles)

    def rk_detail(self):
        return ", any alignment"

    def register_map(self, body_fn):
        lines = [f"{reg.att()} {block_role(self.plan, j)}"
                 for j, reg in enumerate(self.plan.blocks)]
        for role, text in body_fn.roles:
            lines.append(f"{self.plan.named[role].att()} {text}")
        for role in ("mask", "inv", "ainv", "tab"):
            if role in self.plan.named:
                lines.append(f"{self.plan.named[role].att()} " + {
                    "mask": "0x0f bytes", "inv": "1/x nibble table", "ainv": "a/x nibble table",
                    "tab": "the round's other tables, one at a time"}[role])
        temps = [r for name, r in self.plan.named.items() if name[0] == "t" and "_" in name]
        lines.append(", ".join(r.att() for r in temps) + ": per block register, nibbles and "
                     "lookups (h, x, y, z)")
        return lines + [sysv_note(self.v.mode.kernel_shape)] + self.gp_notes

    # --- constants -------------------------------------------------------------
    def const(self, name, data, why):
        c = Const(f".L{self.v.backend_symbol}_{name}", why, _quads(data, self.vec.lanes))
        return rip(self.p.const(c).name)

    def table(self, name, data, why):
        """A table as a shuffle operand: memory (SSE) or loaded into `tab`."""
        m = self.const(name, data, why)
        if self.vec.enc == "sse":
            return m
        self.vec.load(self.p, m, self.plan.named["tab"])  # rodata is 16-byte aligned
        return self.plan.named["tab"]

    def load_keys(self):
        """The tables every round uses, into registers (VEX/EVEX)."""
        if self.vec.enc == "sse":
            return
        for role, data, why in self._resident():
            self.vec.load(self.p, self.const(role, data, why), self.plan.named[role])

    def _resident(self):
        return (("mask", [0x0F] * 16, "0x0f in every byte"),
                ("inv", VP.INV, "1/x in F16 by nibble; 1/0 = 0x80 (a lookup of it gives 0)"),
                ("ainv", VP.AINV, "a/x in F16 by nibble; a/0 = 0x80"))

    def _fixed(self, role):
        """mask, inv or ainv: a register (VEX/EVEX) or memory (SSE)."""
        if self.vec.enc != "sse":
            return self.plan.named[role]
        data, why = {r: (d, w) for r, d, w in self._resident()}[role]
        return self.const(role, data, why)

    def temps(self, j):
        return [self.plan.named[f"t{j}_{t}"] for t in TEMPS]

    # --- rounds ------------------------------------------------------------------
    def split(self, regs):
        """h = high nibbles (in the low ones), s = low nibbles."""
        vec, p, mask = self.vec, self.p, self._fixed("mask")
        for j, s in enumerate(regs):
            h = self.temps(j)[0]
            vec.andn(p, mask, s, h)
            vec.shr32(p, 4, h)
            vec.and_(p, mask, s)

    def lookups(self, name, data, why, pairs):
        """dst = table[idx] for each (idx, dst), the table loaded once."""
        t = self.table(name, data, why)
        for idx, dst in pairs:
            self.vec.shuffle(self.p, t, idx, dst)

    def inverse(self, regs):
        """The tower bytes of each s -> (io in x, jo in y)."""
        vec, p = self.vec, self.p
        inv, ainv = self._fixed("inv"), self._fixed("ainv")
        self.split(regs)
        T = [self.temps(j) for j in range(len(regs))]
        for (h, x, y, z), s in zip(T, regs):
            vec.shuffle(p, ainv, s, x)          # a/k
            vec.xor(p, h, s)                    # j = i ^ k
        for (h, x, y, z), s in zip(T, regs):
            vec.shuffle(p, inv, h, y)
            vec.xor(p, x, y)                    # iak = 1/i ^ a/k
            vec.shuffle(p, inv, s, z)
            vec.xor(p, x, z)                    # jak = 1/j ^ a/k
        for (h, x, y, z), s in zip(T, regs):
            vec.shuffle(p, inv, y, x)
            vec.xor(p, s, x)                    # io = 1/iak ^ j
            vec.shuffle(p, inv, z, y)
            vec.xor(p, h, y)                    # jo = 1/jak ^ i

    def pair(self, name, tables, why, regs, dst_of):
        """dst = tables[0][io] ^ tables[1][jo], the two tables one at a time."""
        T = [self.temps(j) for j in range(len(regs))]
        dsts = [dst_of(t, s) for t, s in zip(T, regs)]
        self.lookups(name + "u", tables[0], why + " (io)", [(t[1], d) for t, d in zip(T, dsts)])
        scratch = [t[3] if d is not t[3] else t[0] for t, d in zip(T, dsts)]
        self.lookups(name + "t", tables[1], why + " (jo)",
                     [(t[2], z) for t, z in zip(T, scratch)])
        for d, z in zip(dsts, scratch):
            self.vec.xor(self.p, z, d)

    def add_key(self, regs, r):
        k = self.key(r)
        for s in regs:
            self.vec.xor(self.p, k, s)

    def rotation(self, decrypt, r, turns):
        pi = VP.pi(decrypt, r)
        return self.const(f"mc{'d' if decrypt else 'e'}{r % 4}r{turns}", VP.mc_index(pi, turns),
                          f"rotate each column {turns} row(s) up, state bytes as after "
                          f"{r % 4} ShiftRows mod 4")

    def whiten(self, regs):
        decrypt = self.v.mode.schedule == "dec"
        ipt, tag = (VP.iptd, "iptd") if decrypt else (VP.ipt, "ipt")
        self.split(regs)
        T = [self.temps(j) for j in range(len(regs))]
        self.lookups(tag + "l", ipt[0], "AES byte -> state tower byte, low nibble",
                     [(s, t[1]) for t, s in zip(T, regs)])
        self.lookups(tag + "h", ipt[1], "AES byte -> state tower byte, high nibble",
                     [(t[0], s) for t, s in zip(T, regs)])
        for t, s in zip(T, regs):
            self.vec.xor(self.p, t[1], s)
        self.add_key(regs, 0)

    def middle_rounds(self, regs, decrypt):
        vec, p = self.vec, self.p
        for r in range(1, self.plan.rounds):
            self.inverse(regs)
            T = [self.temps(j) for j in range(len(regs))]
            fwd = self.rotation(decrypt, r, 1)
            if decrypt:
                self.pair("dsb9", VP.dsb[9], "9 x InvS into the next tower", regs,
                          lambda t, s: s)
                for m in (13, 11, 14):
                    for s in regs:
                        vec.shuffle(p, s, fwd, s)
                    self.pair(f"dsb{m}", VP.dsb[m], f"{m} x InvS into the next tower", regs,
                              lambda t, s: t[0])
                    for t, s in zip(T, regs):
                        vec.xor(p, t[0], s)
                self.add_key(regs, r)
            else:
                self.pair("sb1", VP.sb1, "S into the next tower", regs, lambda t, s: s)
                self.pair("sb2", VP.sb2, "2 x S into the next tower", regs, lambda t, s: t[0])
                bwd = self.rotation(False, r, 3)
                key = self.key(r)
                for (h, x, y, z), s in zip(T, regs):
                    vec.shuffle(p, s, fwd, x)           # B
                    vec.shuffle(p, s, bwd, s)           # D
                    vec.xor(p, x, h)                    # 2A ^ B
                    vec.shuffle(p, h, fwd, x)           # 2B ^ C
                    vec.xor(p, key, s)                  # the key off the chain: the
                    vec.xor(p, h, s)                    # serial modes wait on 2B ^ C
                    vec.xor(p, x, s)                    # 2A ^ 3B ^ C ^ D ^ key

    def rounds(self, regs, decrypt):
        self.middle_rounds(regs, decrypt)
        n = self.plan.rounds
        self.inverse(regs)
        out, tag = (VP.dsbo, "dsbo") if decrypt else (VP.sbo, "sbo")
        self.pair(tag, out, "InvS" if decrypt else "S without 0x63, as AES bytes", regs,
                  lambda t, s: s)
        self.add_key(regs, n)
        perm = self.const(f"out{'d' if decrypt else 'e'}{n % 4}", VP.pi(decrypt, n),
                          f"the state bytes back in place after {n % 4} ShiftRows mod 4")
        for s in regs:
            self.vec.shuffle(self.p, s, perm, s)

    def folds_last_xor(self):
        """No: the last round's key is not an AES instruction's operand here,
        so rounds_xor XORs after the rounds."""
        return False


def _plan(vec, width, rounds, roles):
    """Blocks, the body's registers, the resident tables (VEX/EVEX) and four
    temporaries per block register."""
    if width % vec.lanes:
        raise PlanError(f"width {width} is not a multiple of {vec.lanes} blocks per "
                        f"{vec.kind} register")
    nblock = block_registers(vec, width)
    resident = [] if vec.enc == "sse" else ["mask", "inv", "ainv", "tab"]
    sets = max(nblock, 1)
    names = list(roles) + resident + [f"t{j}_{t}" for j in range(sets) for t in TEMPS]
    if nblock + len(names) > vec.regs:
        raise PlanError(f"width {width} needs {nblock} {vec.kind} registers for blocks, "
                        f"{len(roles) + len(resident)} for the mode and tables and "
                        f"{4 * sets} temporaries, more than the {vec.regs} there are")
    blocks = [vec.reg(n) for n in range(nblock)]
    named = {name: vec.reg(nblock + i) for i, name in enumerate(names)}
    return Plan(vec, width, rounds, blocks, named, {r: None for r in range(rounds + 1)})


# --- the serial modes: the plain chain, one block -----------------------------

BODIES = {name: skeletons.BODIES[name] for name in ("ecb", "cbc_dec", "cfb_dec", "ctr")}


def _serial(name):
    def register(fn):
        fn.roles = (("chain", "chaining value / current block"), ("tmp", TMP_ROLE))
        BODIES[name] = fn
        return fn
    return register


def _serial_loop(k, block):
    """One block at a time with the chain in a register from iv to iv."""
    x = k.plan.named["chain"]
    k.vec.load(k.p, mem(k.arg("iv")), x)
    k.loop(1, lambda: block(x), countdown=True)
    k.vec.store(k.p, x, mem(k.arg("iv")))


@_serial("cbc_enc")
def cbc_enc(k, v):
    """c_i = E(p_i ^ c_{i-1})."""
    def block(x):
        k.vec.xor_mem(k.p, mem(k.arg("src")), x, k.tmp)
        k.whiten([x])
        k.rounds([x], False)
        k.vec.store(k.p, x, mem(k.arg("dst")))
    _serial_loop(k, block)


@_serial("cfb_enc")
def cfb_enc(k, v):
    """c_i = E(c_{i-1}) ^ p_i."""
    def block(x):
        k.whiten([x])
        k.rounds([x], False)
        k.vec.xor_mem(k.p, mem(k.arg("src")), x, k.tmp)
        k.vec.store(k.p, x, mem(k.arg("dst")))
    _serial_loop(k, block)


@_serial("ofb")
def ofb(k, v):
    """o_i = E(o_{i-1}), c_i = p_i ^ o_i."""
    def block(x):
        k.whiten([x])
        k.rounds([x], False)
        k.vec.load(k.p, mem(k.arg("src")), k.tmp)
        k.vec.xor(k.p, x, k.tmp)
        k.vec.store(k.p, k.tmp, mem(k.arg("dst")))
    _serial_loop(k, block)


# Widths up to this run on xmm (VEX/EVEX): a short group gains nothing from
# wider registers.
NARROW_UP_TO = 1

EMITTER = SkeletonEmitter(VECTORS, BODIES, NARROW_UP_TO, VpaesKernel)
