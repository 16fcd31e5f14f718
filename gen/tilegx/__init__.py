# SPDX-License-Identifier: Apache-2.0
"""The TILE-Gx target: AES in C with GCC's __insn_* builtins (Corneliusen's
"OpenSSL aes_core.c Replacement for Tilera TILE-Gx"), the same block code as
scheduled bundles, and the host emulation that runs it (the tilegx-emu
backend).

The state is OpenSSL's: four big-endian 32-bit words.  The tables are
OpenSSL's Te0-3 and Td0-3 (and Td4, the inverse S-box as words), each aligned
to 1 KiB, so `tblidxbK(table, word)` is the address of the entry for byte K of
the word in one operation, and `ld4u` loads it.  Input of any alignment comes
through two or three `ldna` doubleword loads, `dblalign` and `revbytes`;
output through byte stores, or `st` when GX_STORE_ALIGNED promises 8-byte
aligned output (the article's aligned store path).

  c.py        the block functions and the kernels' mode bodies (C)
  bundles.py  the block functions as TILE-Gx instructions, and the
              aes_core.c-style baseline the report compares
  sched.py    register allocation and bundle scheduling by the ISA's pipes
  report.py   `aesgen.py --report tilegx`

What the emitter writes under generated/tilegx/:
  aes_tilegx_core.h  the tables and one- and two-block encryption and
                     decryption per key size (static inline)
  tilegx_kernels.c   the runtime's tilegx-emu kernels (every mode) on it
  aes_core_tilegx.c  a drop-in for OpenSSL's aes_core.c with the same code
                     inlined: AES_set_encrypt_key, AES_set_decrypt_key,
                     AES_encrypt, AES_decrypt on OpenSSL's AES_KEY
  aes_tilegx.S, aes_core_c_baseline.S   the scheduled bundles
On a host the runtime's kernels are compiled with -include tilegx_emu.h.
Not constant-time (table lookups indexed by key and data).
"""

from emitter import RUNTIME_AEAD_XTS, Emitter, contract_notes

from . import bundles, c, report


class TilegxEmitter(Emitter):
    directory = ("tilegx", "TILE-Gx C (__insn_* builtins; emulated on other hosts), the "
                 "aes_core.c drop-in")
    source = "gen/tilegx/c.py"
    bodies = c.BODIES
    without = RUNTIME_AEAD_XTS

    def file_for(self, v):
        return "tilegx/tilegx_kernels.c"

    def kernel(self, v, backend):
        return {"symbol": v.symbol, "params": v.mode.kernel_shape.c_params,
                "notes": contract_notes(v, backend, "C99 and the TILE-Gx builtins "
                                        "(runtime/tilegx/tilegx_emu.h on another host)"),
                "body": self.body(backend, v.mode)(v)}

    def emit(self, variants, render, backend):
        core = c.core_context()
        return {
            "tilegx/aes_tilegx_core.h": render("tilegx_core.h.j2", **core),
            "tilegx/tilegx_kernels.c": render("tilegx_kernels.c.j2",
                                              kernels=[self.kernel(v, backend) for v in variants]),
            # The drop-in: one block at a time (AES_encrypt, AES_decrypt).
            "tilegx/aes_core_tilegx.c": render("aes_core_tilegx.c.j2", **dict(
                core, funcs=[f for f in core["funcs"] if f["width"] == 1])),
            **bundles.files(render),
        }

    def width_problem(self, backend, width, mode):
        return "" if width in c.BLOCK_WIDTHS else (
            f"width {width}: the TILE-Gx block functions interleave "
            f"{' or '.join(map(str, c.BLOCK_WIDTHS))} blocks")

    def report(self):
        return report.report()


EMITTER = TilegxEmitter()
