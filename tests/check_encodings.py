#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Every distinct .byte-encoded instruction in generated/ against GNU as.

The generator writes AES instructions as `.byte ... # mnemonic operands`; this
assembles each distinct mnemonic line with `as`, extracts the bytes with
objcopy, and requires them to equal the .byte sequence.  An encoder bug
therefore fails here even if no test happens to execute that register pair.
"""

import pathlib
import re
import subprocess
import sys
import tempfile

SKIPPED = 77  # ctest's SKIP_RETURN_CODE
BYTE_LINE = re.compile(r"^\s*\.byte\s+([0-9a-fx,]+)\s+#\s+(.+?)\s*$")


def collect(root):
    found = {}
    for path in sorted(pathlib.Path(root).rglob("*.S")):
        for line in path.read_text().splitlines():
            m = BYTE_LINE.match(line)
            if m:
                code = bytes(int(b, 16) for b in m.group(1).split(","))
                if found.setdefault(m.group(2), code) != code:
                    sys.exit(f"{path}: '{m.group(2)}' has two encodings")
    return found


def assemble(mnemonics):
    with tempfile.TemporaryDirectory() as tmp:
        src, obj, raw = (pathlib.Path(tmp, n) for n in ("e.s", "e.o", "e.bin"))
        src.write_text("".join(f"{m}\n" for m in mnemonics))
        subprocess.run(["as", "--64", "-o", str(obj), str(src)], check=True)
        subprocess.run(["objcopy", "-O", "binary", "-j", ".text", str(obj), str(raw)], check=True)
        return raw.read_bytes()


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "generated"
    found = collect(root)
    if not found:
        print(f"SKIP: no .byte-encoded instructions under {root} (no x86 backend generated)")
        return SKIPPED
    mnemonics = sorted(found)
    blob = assemble(mnemonics)
    failures, off = 0, 0
    for m in mnemonics:
        want = found[m]
        got = blob[off:off + len(want)]
        if got != want:
            print(f"MISMATCH {m}: generated {want.hex()} as {got.hex()}")
            failures += 1
        off += len(want)
    if off != len(blob):
        print(f"MISMATCH: as produced {len(blob)} bytes, generated {off}")
        failures += 1
    ops = sorted({m.split()[0] for m in mnemonics})
    print(f"{len(mnemonics)} distinct encodings ({', '.join(ops)}): "
          f"{len(mnemonics) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
