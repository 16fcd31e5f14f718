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


self_check()
