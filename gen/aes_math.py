# SPDX-License-Identifier: Apache-2.0
"""AES constants derived from GF(2^8) arithmetic (FIPS-197 sections 4 and 5).

Nothing here is a pasted table: the S-box is the multiplicative inverse followed
by the affine map, the T-tables are S-box outputs times the MixColumns column,
and Rcon is successive powers of x.  `self_check()` compares a few values and one
whole block against FIPS-197, so a slip in the field math cannot reach the output.

T-tables use the little-endian column convention: the state column made of bytes
(b0, b1, b2, b3) is the 32-bit value b0 | b1 << 8 | b2 << 16 | b3 << 24, so that a
plain 32-bit load of the state on a little-endian machine gives a column and the
round keys are the FIPS-197 byte string, the same bytes every backend uses.
"""

AES_POLY = 0x11B  # x^8 + x^4 + x^3 + x + 1


def gf_mul(a, b):
    """Product in GF(2^8) modulo the AES polynomial (FIPS-197 4.2)."""
    product = 0
    while b:
        if b & 1:
            product ^= a
        a <<= 1
        if a & 0x100:
            a ^= AES_POLY
        b >>= 1
    return product


def gf_inverse(a):
    """Multiplicative inverse, with 0 mapped to 0 (FIPS-197 5.1.1): a^254."""
    result = 1
    for _ in range(254):
        result = gf_mul(result, a)
    return result if a else 0


def _rotl8(x, n):
    return ((x << n) | (x >> (8 - n))) & 0xFF


def _affine(b):
    return b ^ _rotl8(b, 1) ^ _rotl8(b, 2) ^ _rotl8(b, 3) ^ _rotl8(b, 4) ^ 0x63


def _rotl32(x, n):
    return ((x << n) | (x >> (32 - n))) & 0xFFFFFFFF


def _column(bytes4):
    b0, b1, b2, b3 = bytes4
    return b0 | b1 << 8 | b2 << 16 | b3 << 24


SBOX = tuple(_affine(gf_inverse(x)) for x in range(256))
INV_SBOX = tuple(SBOX.index(y) for y in range(256))



def _powers_of_x(count):
    powers = [1]
    while len(powers) < count:
        powers.append(gf_mul(powers[-1], 2))
    return tuple(powers)


# Rcon[i] = x^(i-1): the 10 values AES-128 needs (AES-192/256 use fewer).
RCON = _powers_of_x(10)

# MixColumns column 0 is (2, 1, 1, 3); InvMixColumns column 0 is (e, 9, d, b).
# Table k is table 0 rotated left by 8k bits: the same column for row k.
TE0 = tuple(_column([gf_mul(SBOX[x], c) for c in (2, 1, 1, 3)]) for x in range(256))
TD0 = tuple(_column([gf_mul(INV_SBOX[x], c) for c in (0xE, 0x9, 0xD, 0xB)]) for x in range(256))
TE = tuple(tuple(_rotl32(v, 8 * k) for v in TE0) for k in range(4))
TD = tuple(tuple(_rotl32(v, 8 * k) for v in TD0) for k in range(4))
# OpenSSL's aes_core.c convention (the TILE-Gx code): a column is a big-endian
# word, row 0 in the top byte; Te0[x] = 2s, s, s, 3s from the top byte down and
# Te1-3 its rotations right by 8k; Td likewise with e, 9, d, b.
def _be_column(bytes4):
    b0, b1, b2, b3 = bytes4
    return b0 << 24 | b1 << 16 | b2 << 8 | b3


def _rotr32(x, n):
    return ((x >> n) | (x << (32 - n))) & 0xFFFFFFFF


TE_BE0 = tuple(_be_column([gf_mul(SBOX[x], c) for c in (2, 1, 1, 3)]) for x in range(256))
TD_BE0 = tuple(_be_column([gf_mul(INV_SBOX[x], c) for c in (0xE, 0x9, 0xD, 0xB)])
               for x in range(256))
TE_BE = tuple(tuple(_rotr32(v, 8 * k) for v in TE_BE0) for k in range(4))
TD_BE = tuple(tuple(_rotr32(v, 8 * k) for v in TD_BE0) for k in range(4))

# Last-round tables: the S-box byte alone, in row k of its column (no MixColumns).
TE_LAST = tuple(tuple(SBOX[x] << (8 * k) for x in range(256)) for k in range(4))
TD_LAST = tuple(tuple(INV_SBOX[x] << (8 * k) for x in range(256)) for k in range(4))


def expand_key(key):
    """FIPS-197 5.2 key expansion; returns the round keys as a list of 16-byte lists."""
    nk = len(key) // 4
    rounds = nk + 6
    words = [list(key[4 * i:4 * i + 4]) for i in range(nk)]
    for i in range(nk, 4 * (rounds + 1)):
        temp = list(words[i - 1])
        if i % nk == 0:
            temp = [SBOX[b] for b in temp[1:] + temp[:1]]
            temp[0] ^= RCON[i // nk - 1]
        elif nk > 6 and i % nk == 4:
            temp = [SBOX[b] for b in temp]
        words.append([a ^ b for a, b in zip(words[i - nk], temp)])
    return [sum(words[4 * r:4 * r + 4], []) for r in range(rounds + 1)]


def inv_mix_column(col):
    """InvMixColumns of one 4-byte column (FIPS-197 5.3.3)."""
    m = (0xE, 0xB, 0xD, 0x9)
    return [gf_mul(col[0], m[(0 - r) % 4]) ^ gf_mul(col[1], m[(1 - r) % 4])
            ^ gf_mul(col[2], m[(2 - r) % 4]) ^ gf_mul(col[3], m[(3 - r) % 4]) for r in range(4)]


def _cols(block):
    return [_column(block[4 * c:4 * c + 4]) for c in range(4)]


def _ttable_block(tables, sbox, step, rks, block):
    """One block through T-table rounds as the portable kernels compute them:
    column c of a round takes row r from column c + r*step (step 1 undoes
    ShiftRows' left rotation for encryption, step -1 for decryption)."""
    x = [a ^ k for a, k in zip(_cols(block), _cols(rks[0]))]
    pick = lambda c, r: (x[(c + r * step) % 4] >> (8 * r)) & 0xFF
    for rk in rks[1:-1]:
        x = [tables[0][pick(c, 0)] ^ tables[1][pick(c, 1)] ^ tables[2][pick(c, 2)]
             ^ tables[3][pick(c, 3)] ^ k for c, k in enumerate(_cols(rk))]
    x = [(sbox[pick(c, 0)] | sbox[pick(c, 1)] << 8 | sbox[pick(c, 2)] << 16
          | sbox[pick(c, 3)] << 24) ^ k for c, k in enumerate(_cols(rks[-1]))]
    return bytes(b for w in x for b in w.to_bytes(4, "little"))


def equivalent_inverse_keys(rks):
    """FIPS-197 5.3.5: reversed round keys, InvMixColumns on all but the outer two."""
    inner = [sum((inv_mix_column(rk[4 * c:4 * c + 4]) for c in range(4)), []) for rk in rks[1:-1]]
    return [rks[-1]] + inner[::-1] + [rks[0]]


def ttable_encrypt_block(key, block):
    return _ttable_block(TE, SBOX, 1, expand_key(key), block)


def ttable_decrypt_block(key, block):
    return _ttable_block(TD, INV_SBOX, -1, equivalent_inverse_keys(expand_key(key)), block)


# --- vector-permutation AES (Hamburg, "Accelerating AES with vector permute
# instructions", CHES 2009) ----------------------------------------------------
#
# pshufb looks a byte's low nibble up in a 16-byte table (0 when the index has
# bit 7 set), so everything below is a function of one nibble, or an XOR.
#
# Representation.  F16 = {x : x^16 = x} is the subfield of GF(2^8) with 16
# elements; w (a generator of its multiplicative group) gives it the GF(2)
# basis 1, w, w^2, w^3, so a nibble n names the element sum of w^b over its
# bits b.  Pick theta outside F16 whose norm theta^17 equals its trace
# theta + theta^16 =: a (so theta^2 + a theta + a = 0, the conjugate of theta
# is theta + a).  Every byte of the field is then x = i theta + k with i, k in
# F16: the "tower" byte (i << 4) | k.  P maps an AES byte to its tower byte
# (a GF(2)-linear map, so two 16-entry tables of nibbles and an XOR).
#
# Inversion from nibble lookups.  With j = i + k, N = x x' = a i^2 + a i k + k^2
# (x' the conjugate) and 1/0 read as "infinity" (0x80: an XOR keeps it, a
# lookup of it yields 0, i.e. 1/inf = 0):
#     io = 1/(1/i + a/k) + j = N / (k + a i)
#     jo = 1/(1/j + a/k) + i = N / (k + a i + a k)
# (expand: 1/(1/i + a/k) = ik/(k + ai)).  Since 1/x = x'/N = (i theta + ai + k)/N:
#     1/x = (1/io) c1 + (1/jo) c2,  c1 = 1 + theta (1/a + 1/a^2),  c2 = theta/a^2,
# again one function of io plus one of jo, so the output tables take any
# linear map after the inversion (the S-box's affine part, x2 for MixColumns,
# x9/x11/x13/x14 for InvMixColumns, the next round's P) for free.
#
# Between rounds the state is kept in tower bytes, P(s) for encryption and
# P(A^-1(s)) ^ P(A^-1(0x63)) for decryption (the inverse S-box's affine map
# comes before its inversion); the affine constants are folded into the round
# keys.  ShiftRows is never done: a byte permutation commutes with every
# bytewise map, so the state's bytes stay where they are and the permutation
# accumulates (period 4); the MixColumns rotations and the round keys are
# permuted to match, and one pshufb at the end puts the bytes in place.


def _gf_pow(x, e):
    r = 1
    for _ in range(e):
        r = gf_mul(r, x)
    return r


def _gf_order(x):
    y, n = x, 1
    while y != 1:
        y, n = gf_mul(y, x), n + 1
    return n


def _matrix_inverse(cols):
    """The GF(2) 8x8 inverse of the map sending bit b to cols[b]: its columns."""
    image = {}
    for x in range(256):
        y = 0
        for b in range(8):
            if x >> b & 1:
                y ^= cols[b]
        image[y] = x
    assert len(image) == 256, "not a basis"
    return [image[1 << b] for b in range(8)]


def _linear(cols, x):
    y = 0
    for b in range(8):
        if x >> b & 1:
            y ^= cols[b]
    return y


class _Vpaes:
    def __init__(self):
        g = min(x for x in range(2, 256) if _gf_order(x) == 255)
        w = _gf_pow(g, 17)                      # order 15: generates F16*
        self.nib = [0] * 16                     # nibble -> field element
        for n in range(16):
            for b in range(4):
                if n >> b & 1:
                    self.nib[n] ^= _gf_pow(w, b)
        f16 = set(self.nib)
        self.theta = min(t for t in range(256) if t not in f16
                         and _gf_pow(t, 17) == t ^ _gf_pow(t, 16))
        self.a = self.theta ^ _gf_pow(self.theta, 16)
        e = self.nib
        # Tower byte (i << 4) | k  <->  field element i theta + k.
        tower_cols = [e[1 << b] for b in range(4)] + [gf_mul(e[1 << b], self.theta)
                                                      for b in range(4)]
        self.P = _matrix_inverse(tower_cols)    # AES byte -> tower byte
        inv_n = lambda n: e.index(gf_inverse(e[n]))
        self.INV = [0x80] + [inv_n(n) for n in range(1, 16)]
        self.AINV = [0x80] + [e.index(gf_mul(self.a, gf_inverse(e[n]))) for n in range(1, 16)]
        a_inv = gf_inverse(self.a)
        c1 = 1 ^ gf_mul(self.theta, a_inv ^ gf_mul(a_inv, a_inv))
        c2 = gf_mul(self.theta, gf_mul(a_inv, a_inv))
        # 1/x = F[io] ^ G[jo] (AES bytes); entry 0 is 0 (x = 0, or io = inf).
        self.F = [gf_mul(gf_inverse(e[n]), c1) for n in range(16)]
        self.G = [gf_mul(gf_inverse(e[n]), c2) for n in range(16)]
        alin = lambda x: _affine(x) ^ 0x63
        alin_inv = _matrix_inverse([alin(1 << b) for b in range(8)])
        self.Pd = [_linear(self.P, _linear(alin_inv, 1 << b)) for b in range(8)]
        self.c_dec = _linear(self.Pd, 0x63)     # the decryption state's constant
        nib_tables = lambda f: ([f(n) for n in range(16)], [f(n << 4) for n in range(16)])
        # Encryption: input, middle rounds (S and 2S into the next tower), output.
        self.ipt = nib_tables(lambda x: _linear(self.P, x))
        self.sb1 = ([_linear(self.P, alin(v)) for v in self.F],
                    [_linear(self.P, alin(v)) for v in self.G])
        self.sb2 = ([_linear(self.P, gf_mul(2, alin(v))) for v in self.F],
                    [_linear(self.P, gf_mul(2, alin(v))) for v in self.G])
        self.sbo = ([alin(v) for v in self.F], [alin(v) for v in self.G])
        # Decryption: input, InvMixColumns multiples into the next tower, output.
        self.iptd = nib_tables(lambda x: _linear(self.Pd, x))
        self.dsb = {m: ([_linear(self.Pd, gf_mul(m, v)) for v in self.F],
                        [_linear(self.Pd, gf_mul(m, v)) for v in self.G]) for m in (9, 11, 13, 14)}
        self.dsbo = (list(self.F), list(self.G))
        # Byte positions: 4c + r is row r of column c.  A round's ShiftRows
        # reads true position p from src(p); the state's bytes stay, the
        # permutation pi (true position -> stored position) accumulates.
        self.perms = {}
        for name, step in (("enc", 1), ("dec", -1)):
            shift = [4 * ((p // 4 + step * (p % 4)) % 4) + p % 4 for p in range(16)]
            pis = [list(range(16))]
            for _ in range(3):
                pis.append([pis[-1][shift[p]] for p in range(16)])
            self.perms[name] = pis
        self.rot = [4 * (p // 4) + (p % 4 + 1) % 4 for p in range(16)]  # row r+1, same column

    def mc_index(self, pi, turns):
        """pshufb indices that rotate each stored column `turns` rows, for the
        permutation pi: stored q takes stored pi(rot^turns(pi^-1(q)))."""
        inv = [pi.index(q) for q in range(16)]
        out = []
        for q in range(16):
            p = inv[q]
            for _ in range(turns):
                p = self.rot[p]
            out.append(pi[p])
        return out

    def pi(self, decrypt, r):
        """The permutation after r rounds' ShiftRows."""
        return self.perms["dec" if decrypt else "enc"][r % 4]

    # --- round keys ------------------------------------------------------------
    def round_keys(self, rks, decrypt):
        """The schedule in this representation: rks as expand_key (or
        equivalent_inverse_keys for decryption) gives them; each key's bytes
        in the tower of the state it is added to, at their stored positions."""
        n = len(rks) - 1
        out = []
        for r, rk in enumerate(rks):
            if r == n:
                t = [b ^ (0 if decrypt else 0x63) for b in rk]
            elif decrypt:
                t = [_linear(self.Pd, b) ^ self.c_dec for b in rk]
            elif r == 0:
                t = [_linear(self.P, b) for b in rk]
            else:
                t = [_linear(self.P, b ^ 0x63) for b in rk]
            pi = self.pi(decrypt, r)
            stored = [0] * 16
            for p in range(16):
                stored[pi[p]] = t[p]
            out.append(stored)
        return out

    # --- a model of the kernels: pshufb on lists -------------------------------
    @staticmethod
    def _shuffle(table, idx):
        return [0 if i & 0x80 else table[i & 15] for i in idx]

    def _inverse_nibbles(self, t):
        """(io, jo) of each tower byte, by the five lookups."""
        sh = self._shuffle
        hi, lo = [b >> 4 for b in t], [b & 15 for b in t]
        ak = sh(self.AINV, lo)
        j = [x ^ y for x, y in zip(hi, lo)]
        iak = [x ^ y for x, y in zip(sh(self.INV, hi), ak)]
        jak = [x ^ y for x, y in zip(sh(self.INV, j), ak)]
        io = [x ^ y for x, y in zip(sh(self.INV, iak), j)]
        jo = [x ^ y for x, y in zip(sh(self.INV, jak), hi)]
        return io, jo

    def _pair(self, tables, io, jo):
        return [x ^ y for x, y in zip(self._shuffle(tables[0], io), self._shuffle(tables[1], jo))]

    def crypt_block(self, keys, block, decrypt):
        """One block through the kernels' steps; keys from round_keys()."""
        sh, xor = self._shuffle, lambda u, v: [x ^ y for x, y in zip(u, v)]
        n = len(keys) - 1
        ipt = self.iptd if decrypt else self.ipt
        t = xor(xor(sh(ipt[0], [b & 15 for b in block]), sh(ipt[1], [b >> 4 for b in block])),
                keys[0])
        for r in range(1, n):
            io, jo = self._inverse_nibbles(t)
            pi = self.pi(decrypt, r)
            fwd = self.mc_index(pi, 1)
            if decrypt:
                acc = self._pair(self.dsb[9], io, jo)
                for m in (13, 11, 14):
                    acc = xor(sh(acc, fwd), self._pair(self.dsb[m], io, jo))
                t = xor(acc, keys[r])
            else:
                a1, a2 = self._pair(self.sb1, io, jo), self._pair(self.sb2, io, jo)
                x = xor(a2, sh(a1, fwd))
                t = xor(xor(x, sh(x, fwd)), xor(sh(a1, self.mc_index(pi, 3)), keys[r]))
        io, jo = self._inverse_nibbles(t)
        out = xor(self._pair(self.dsbo if decrypt else self.sbo, io, jo), keys[n])
        return bytes(sh(out, self.pi(decrypt, n)))


VPAES = _Vpaes()


def vpaes_encrypt_block(key, block):
    return VPAES.crypt_block(VPAES.round_keys(expand_key(key), False), list(block), False)


def vpaes_decrypt_block(key, block):
    rks = equivalent_inverse_keys(expand_key(key))
    return VPAES.crypt_block(VPAES.round_keys(rks, True), list(block), True)


# --- GF(2^128) and GCM (NIST SP 800-38D) ------------------------------------
#
# A block is a polynomial over GF(2) modulo P = x^128 + x^7 + x^2 + x + 1 whose
# coefficient of x^0 is the first bit of the block (the top bit of byte 0).
# Read as a big-endian integer b, a block has the coefficient of x^i in bit
# 127 - i: this is what a kernel holds after byte-reversing a block into a
# register (read little-endian), so the model works on these integers, which
# we call "reflected".
#
# Carry-less multiplication of reflected a and b gives, in 256 bits, the
# product's coefficient of x^(254 - j) in bit j (one position short of a
# 256-bit reflection).  Reading the 256 bits as x^(255 - j) therefore means
# x * A * B.  Their low 128 bits (degrees 255..128) fold into the high ones
# with x^128 = x^7 + x^2 + x + 1 = x (x^6 + x + 1) + 1, a 64-bit half at a
# time: the x (x^6 + x + 1) part is one carry-less product by the reflected
# 64-bit constant of x^6 + x + 1, 0xc2 << 56 (its factor x is the product's
# own one-position shift), and the 1 moves the half up by 64 bits (a swap of
# halves).  Two folds leave x * A * B mod P in the high 128 bits.  The hash
# key is stored as H * x^-1 (x^-1 = x^127 + x^6 + x + 1), so a product with it
# is A * H: what descriptions of this method call "H shifted left by one",
# the reflected integer's shift.  All of it is checked below against the
# bit-serial multiplication of SP 800-38D (algorithm 1).

GCM_R = 0xE1 << 120          # x^7 + x^2 + x + 1 as a reflected integer, for algorithm 1
GCM_FOLD = 0xC2 << 56        # x^6 + x + 1, reflected in 64 bits: the folding constant
GCM_X_INV = 1 << 127 | 1 << 126 | 1 << 121 | 1  # x^-1 = 1 + x + x^6 + x^127, reflected
_M64 = (1 << 64) - 1


def gf128_mul(x, y):
    """x * y of two reflected blocks (SP 800-38D, algorithm 1)."""
    z, v = 0, y
    for i in range(127, -1, -1):
        if x >> i & 1:
            z ^= v
        v = (v >> 1) ^ (GCM_R if v & 1 else 0)
    return z


def clmul(a, b):
    """The carry-less product of two integers (pclmulqdq on 64-bit halves)."""
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        b >>= 1
    return r


def ghash_key(h):
    """The stored form of a hash-key power: H * x^-1 (see above)."""
    return gf128_mul(h, GCM_X_INV)


def ghash_fold(lo, mi, hi):
    """The reduction the kernels do: the 256-bit sum lo + mi << 64 + hi << 128
    of carry-less products (each 128 bits) folded to 128 bits, a half at a time."""
    q = [lo & _M64, (lo >> 64) ^ (mi & _M64), (mi >> 64) ^ (hi & _M64), hi >> 64]
    t = clmul(q[0], GCM_FOLD)
    q[1] ^= t & _M64
    q[2] ^= (t >> 64) ^ q[0]
    t = clmul(q[1], GCM_FOLD)
    q[2] ^= t & _M64
    q[3] ^= (t >> 64) ^ q[1]
    return q[3] << 64 | q[2]


def ghash_products(a, k, karatsuba=False):
    """(lo, mi, hi) of reflected a times a stored key power k: four 64-bit
    products, or three with Karatsuba (mi from the halves' sums)."""
    al, ah, kl, kh = a & _M64, a >> 64, k & _M64, k >> 64
    lo, hi = clmul(al, kl), clmul(ah, kh)
    mi = clmul(al ^ ah, kl ^ kh) ^ lo ^ hi if karatsuba else clmul(al, kh) ^ clmul(ah, kl)
    return lo, mi, hi


def ghash_blocks(key_powers, y, blocks, karatsuba=False):
    """Y after the blocks (reflected ints), as a kernel computes it for a
    group: (Y ^ X_1) * H^n + X_2 * H^(n-1) + ... + X_n * H, the products summed
    before one reduction.  key_powers[i] is the stored H^(i+1)."""
    n = len(blocks)
    lo = mi = hi = 0
    for i, x in enumerate(blocks):
        l, m, h = ghash_products(x ^ (y if i == 0 else 0), key_powers[n - 1 - i], karatsuba)
        lo, mi, hi = lo ^ l, mi ^ m, hi ^ h
    return ghash_fold(lo, mi, hi)


def ghash(h, data):
    """GHASH_H of data (a multiple of 16 bytes), SP 800-38D 6.4, bit-serial."""
    y = 0
    for i in range(0, len(data), 16):
        y = gf128_mul(y ^ int.from_bytes(data[i:i + 16], "big"), h)
    return y


def _pad16(data):
    return data + bytes(-len(data) % 16)


def gcm_j0(h, iv):
    """The pre-counter block (SP 800-38D 7.1 step 2)."""
    if len(iv) == 12:
        return iv + b"\x00\x00\x00\x01"
    lengths = (8 * len(iv)).to_bytes(16, "big")
    return ghash(h, _pad16(iv) + lengths).to_bytes(16, "big")


def gcm_inc32(block):
    return block[:12] + ((int.from_bytes(block[12:], "big") + 1) % (1 << 32)).to_bytes(4, "big")


def gcm_crypt(key, iv, aad, data, decrypt=False):
    """(output, tag) of GCM-AE (or, decrypt, the plaintext and the tag it should
    have): SP 800-38D 7.1 / 7.2 on the T-table cipher."""
    enc = lambda b: ttable_encrypt_block(key, b)
    h = int.from_bytes(enc(bytes(16)), "big")
    j0 = gcm_j0(h, iv)
    out, ctr = bytearray(), gcm_inc32(j0)
    for i in range(0, len(data), 16):
        ks = enc(ctr)
        out += bytes(a ^ b for a, b in zip(data[i:i + 16], ks))
        ctr = gcm_inc32(ctr)
    cipher = bytes(data) if decrypt else bytes(out)
    lengths = (8 * len(aad)).to_bytes(8, "big") + (8 * len(cipher)).to_bytes(8, "big")
    s = ghash(h, _pad16(aad) + _pad16(cipher) + lengths)
    tag = bytes(a ^ b for a, b in zip(enc(j0), s.to_bytes(16, "big")))
    return bytes(out), tag


def _gcm_self_check():
    import random
    rng = random.Random(0x6C3)
    assert gf128_mul(GCM_X_INV, 1 << 126) == 1 << 127, "x^-1 * x = 1"
    # The kernels' multiplication (products, folds, the stored key) is the
    # field's, schoolbook and Karatsuba, single and aggregated.
    for _ in range(64):
        a, h, y = (rng.getrandbits(128) for _ in range(3))
        for kara in (False, True):
            assert ghash_fold(*ghash_products(a, ghash_key(h), kara)) == gf128_mul(a, h)
        xs = [rng.getrandbits(128) for _ in range(4)]
        powers = [h]
        for _ in range(3):
            powers.append(gf128_mul(powers[-1], h))
        want = y
        for x in xs:
            want = gf128_mul(want ^ x, h)
        for kara in (False, True):
            assert ghash_blocks([ghash_key(p) for p in powers], y, xs, kara) == want
    # SP 800-38D's test cases (the GCM specification's 1-4, 6 and 16).
    k1, k2 = bytes(16), bytes.fromhex("feffe9928665731c6d6a8f9467308308")
    iv = bytes.fromhex("cafebabefacedbaddecaf888")
    p = bytes.fromhex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                      "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255")
    aad = bytes.fromhex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
    iv6 = bytes.fromhex("9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728"
                        "c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b")
    cases = [
        (k1, bytes(12), b"", b"", "", "58e2fccefa7e3061367f1d57a4e7455a"),
        (k1, bytes(12), b"", bytes(16), "0388dace60b6a392f328c2b971b2fe78",
         "ab6e47d42cec13bdf53a67b21257bddf"),
        (k2, iv, b"", p, "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
         "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
         "4d5c2af327cd64a62cf35abd2ba6fab4"),
        (k2, iv, aad, p[:60], "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca1"
         "2e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
         "5bc94fbc3221a5db94fae95ae7121a47"),
        (k2, iv6, aad, p[:60], "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2c"
         "a701e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5",
         "619cc5aefffe0bfa462af43c1699d050"),
        (k2 + k2, iv, aad, p[:60], "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd25"
         "55d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
         "76fc6ece0f4e1768cddf8853bb2d551b"),
    ]
    for key, v, a, plain, cipher, tag in cases:
        c, t = gcm_crypt(key, v, a, plain)
        assert (c.hex(), t.hex()) == (cipher, tag), f"SP 800-38D case, key {key.hex()}"
        assert gcm_crypt(key, v, a, c, decrypt=True) == (plain, t)


# --- XTS (IEEE 1619) ---------------------------------------------------------
# A tweak is an element of GF(2^128) read little-endian (byte 0 holds x^0..x^7),
# reduced by x^128 + x^7 + x^2 + x + 1: times alpha (= x) is a shift left by
# one with x^128 folded back as 0x87.  The kernels multiply by alpha^s with one
# carry-less product: the s bits out of the top, times 0x87, stay below x^64
# while s <= 56.

XTS_POLY = 0x87
# The kernels' product constant: 0x87 less its x^0 term, which the XOR of the
# swapped carries already contributes (xts_times_alpha_clmul).
XTS_FOLD = XTS_POLY ^ 1


def xts_times_alpha(tweak, s=1):
    """tweak * alpha^s (16 bytes, little-endian)."""
    v = int.from_bytes(tweak, "little")
    for _ in range(s):
        v <<= 1
        if v >> 128:
            v ^= 1 << 128 | XTS_POLY
    return v.to_bytes(16, "little")


def xts_times_alpha_clmul(tweak, s):
    """The kernels' form, per 16-byte lane, with qword shifts, a qword swap
    and one product (no byte shift: on Zen 5 those issue on the AES pipes).
    s <= 56: c = each qword's top s bits; the qwords shifted left by s; c with
    its qwords swapped XORed in (the low qword's carry lands in the high
    qword, the high qword's in the low one as its x^0 term); and the high
    qword's carry times XTS_FOLD, which stays below x^64.  s = 64: the tweak's
    qwords swapped, plus its high qword times XTS_FOLD."""
    assert 1 <= s <= 56 or s == 64
    lo, hi = int.from_bytes(tweak[:8], "little"), int.from_bytes(tweak[8:], "little")
    mask = (1 << 64) - 1
    if s == 64:
        return ((hi | lo << 64) ^ clmul(hi, XTS_FOLD)).to_bytes(16, "little")
    c_lo, c_hi = lo >> (64 - s), hi >> (64 - s)
    prod = clmul(c_hi, XTS_FOLD)
    assert prod <= mask
    shifted = (lo << s & mask) | (hi << s & mask) << 64
    return (shifted ^ (c_hi | c_lo << 64) ^ prod).to_bytes(16, "little")


XTS_ROTATE_DWORDS = 0x93  # pshufd: dwords 3, 0, 1, 2 (each dword one up, the top one to the bottom)


XTS_TOP_DWORD = 0x03  # pshufd: dword 0 = dword 3 (the others masked off to zeros)
XTS_TOP_KEEP = 0x1  # the opmask bits of a 16-byte lane's dwords: dword 0 kept


def xts_times_alpha32_rotate(tweak, masked=True):
    """tweak * alpha^32 as the kernels step by 32 blocks: a shift by a whole
    dword is a dword rotation (pshufd XTS_ROTATE_DWORDS), which also brings
    the top dword back as its x^0 term; the top dword times XTS_FOLD, below
    x^39, is XORed in.  The top dword alone: with AVX-512 a pshufd
    (XTS_TOP_DWORD) zero-masked to dword 0 (XTS_TOP_KEEP), else the high
    qword shifted right by 32.  Four operations to xts_times_alpha_clmul's
    five."""
    d = [int.from_bytes(tweak[4 * i:4 * i + 4], "little") for i in range(4)]
    rotated = sum(d[XTS_ROTATE_DWORDS >> (2 * i) & 3] << (32 * i) for i in range(4))
    if masked:
        top = sum(d[XTS_TOP_DWORD >> (2 * i) & 3] << (32 * i) for i in range(4)
                  if XTS_TOP_KEEP >> i & 1)
    else:
        top = int.from_bytes(tweak[8:], "little") >> 32
    return (rotated ^ clmul(top, XTS_FOLD)).to_bytes(16, "little")


def xts_double_mask():
    """The dwords that xts_double_masked ANDs with the sign masks: where x^128
    folds back (dword 0: 0x87, from the sign of dword 3) and where the low
    qword's top bit carries into the high one (dword 2: 1, from the sign of
    dword 1)."""
    return (XTS_POLY, 0, 1, 0)


XTS_DOUBLE_SHUFFLE = 0x13  # pshufd: dwords 3, 0, 1, 0 (the signs of 3 and 1 land on 0 and 2)


def xts_double_masked(tweak):
    """tweak * alpha as the xmm kernels step it, no product: each qword added
    to itself (shifted left by one), plus the sign masks of dwords 3 and 1
    (pshufd XTS_DOUBLE_SHUFFLE, psrad 31) ANDed with xts_double_mask()."""
    d = [int.from_bytes(tweak[4 * i:4 * i + 4], "little") for i in range(4)]
    shuffled = [d[XTS_DOUBLE_SHUFFLE >> (2 * i) & 3] for i in range(4)]
    masks = [0xFFFFFFFF if w >> 31 else 0 for w in shuffled]
    carry = [m & c for m, c in zip(masks, xts_double_mask())]
    lo, hi = int.from_bytes(tweak[:8], "little"), int.from_bytes(tweak[8:], "little")
    mask = (1 << 64) - 1
    doubled = (lo << 1 & mask) | (hi << 1 & mask) << 64
    return (doubled ^ sum(c << (32 * i) for i, c in enumerate(carry))).to_bytes(16, "little")


def xts_blocks(key, tweak, data, decrypt=False):
    """(output, next tweak): whole blocks, tweak the first block's (already
    encrypted by the tweak key), as the kernels take them."""
    out = bytearray()
    for i in range(0, len(data), 16):
        x = bytes(a ^ b for a, b in zip(data[i:i + 16], tweak))
        y = ttable_decrypt_block(key, x) if decrypt else ttable_encrypt_block(key, x)
        out += bytes(a ^ b for a, b in zip(y, tweak))
        tweak = xts_times_alpha(tweak)
    return bytes(out), tweak


def _xts_self_check():
    import random
    rng = random.Random(0x7357)
    assert xts_times_alpha((1).to_bytes(16, "little"), 128) == XTS_POLY.to_bytes(16, "little")
    for _ in range(64):
        t = rng.getrandbits(128).to_bytes(16, "little")
        for s in (1, 2, 3, 4, 8, 16, 32, 56, 64):
            assert xts_times_alpha_clmul(t, s) == xts_times_alpha(t, s), f"alpha^{s}"
        assert xts_double_masked(t) == xts_times_alpha(t), "the masked doubling"
        for masked in (True, False):
            assert xts_times_alpha32_rotate(t, masked) == xts_times_alpha(t, 32), \
                "alpha^32 by rotation"
    for t in (1 << 63, 1 << 127, 1 << 127 | 1 << 63, (1 << 128) - 1,  # the carries
              0x80000004_80000003_80000002_80000001):  # each dword its own, each carrying
        t = t.to_bytes(16, "little")
        assert xts_double_masked(t) == xts_times_alpha(t), "the masked doubling's carries"
        for s in (1, 8, 56, 64):
            assert xts_times_alpha_clmul(t, s) == xts_times_alpha(t, s), f"alpha^{s}'s carries"
        for masked in (True, False):
            assert xts_times_alpha32_rotate(t, masked) == xts_times_alpha(t, 32), \
                "alpha^32's carries"
    # IEEE 1619-2007 annex B, vector 1: zero keys, tweak 0, 32 zero bytes.
    tweak = ttable_encrypt_block(bytes(16), bytes(16))
    c, _ = xts_blocks(bytes(16), tweak, bytes(32))
    assert c.hex() == "917cf69ebd68b2ec9b9fe9a3eadda692cd43d2f59598ed858c02c2652fbf922e"
    assert xts_blocks(bytes(16), tweak, c, decrypt=True)[0] == bytes(32)


def self_check():
    """Raise AssertionError unless the derived constants agree with FIPS-197."""
    assert gf_mul(0x57, 0x83) == 0xC1, "FIPS-197 4.2 example"
    assert gf_mul(0x57, 0x13) == 0xFE, "FIPS-197 4.2.1 example"
    assert SBOX[0x00] == 0x63 and SBOX[0x01] == 0x7C and SBOX[0x53] == 0xED, "FIPS-197 figure 7"
    assert INV_SBOX[0x63] == 0x00 and INV_SBOX[0xED] == 0x53, "FIPS-197 figure 14"
    assert sorted(SBOX) == list(range(256)), "S-box is a permutation"
    assert RCON[-1] == 0x36, "FIPS-197 appendix A: Rcon[10]"
    plain = bytes.fromhex("00112233445566778899aabbccddeeff")
    appendix_c = {16: "69c4e0d86a7b0430d8cdb78070b4c55a",
                  24: "dda97ca4864cdfe06eaf70a0ec0d7191",
                  32: "8ea2b7ca516745bfeafc49904b496089"}
    for key_len, cipher in appendix_c.items():
        key = bytes(range(key_len))
        assert ttable_encrypt_block(key, plain).hex() == cipher, f"FIPS-197 C, {key_len}-byte key"
        assert ttable_decrypt_block(key, bytes.fromhex(cipher)) == plain, \
            f"FIPS-197 C inverse, {key_len}-byte key"
        assert vpaes_encrypt_block(key, plain).hex() == cipher, f"vpaes, {key_len}-byte key"
        assert vpaes_decrypt_block(key, bytes.fromhex(cipher)) == plain, \
            f"vpaes inverse, {key_len}-byte key"
    # The nibble inversion and the output tables are the S-box, every byte.
    v = VPAES
    for x in range(256):
        io, jo = v._inverse_nibbles([_linear(v.P, x)])
        assert v._pair(v.sbo, io, jo)[0] ^ 0x63 == SBOX[x], f"vpaes S-box at {x:#04x}"
        io, jo = v._inverse_nibbles([_linear(v.Pd, x) ^ v.c_dec])
        assert v._pair(v.dsbo, io, jo)[0] == INV_SBOX[x], f"vpaes inverse S-box at {x:#04x}"


self_check()
_gcm_self_check()
_xts_self_check()
