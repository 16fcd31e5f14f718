"""TILE-Gx emitter: the home of the coming `tilegx` backend.

Planned: C with __insn_* intrinsics (tblidx/ld4u T-table rounds, see
shared TILE-Gx ISA notes), built on x86 hosts with an emulation header as the
`tilegx-emu` backend so its kernels run in the test suite.  It will provide
emit(variants, render) and file_for(variant), like gen/portable.py.
"""
