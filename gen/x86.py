"""x86-64 emitters: the home of the coming hardware backends.

Planned here: `aesni` (xmm, .byte-encoded aesenc/aesdec blocks), `vaes256` and
`vaes512` (ymm/zmm), and `ttable` (register-allocated T-table assembly with
PeachPy).  Each will provide emit(variants, render) and file_for(variant), like
gen/portable.py, and register in variants.BACKENDS and aesgen.EMITTERS.
"""
