#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""aes-gen: emit fully unrolled AES kernels into generated/.

    /usr/bin/python3 gen/aesgen.py [--widths 1,2,4] [--backends portable] [--keys 128,192,256]
    /usr/bin/python3 gen/aesgen.py --check    regenerate to a temp dir and diff
    /usr/bin/python3 gen/aesgen.py --list [SUBSTR]
    /usr/bin/python3 gen/aesgen.py --report tilegx

The request (backends, widths, keys) is recorded in generated/manifest.json, so
--check reproduces whatever `make gen WIDTHS=...` last wrote.
"""

import argparse
import difflib
import hashlib
import json
import os
import re
import sys

import jinja2

import aes_math
import request as req
import targets
import variants

GEN_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(GEN_DIR)
DEFAULT_OUT = os.path.join(REPO_DIR, "generated")
# Every generated file starts with this; the request lives in manifest.json and
# generated/README.md only, so a new request rewrites only files that change.
GENERATED_BY = "gen/aesgen.py"


def request_args(request):
    """The command line that reproduces `request` (repo-relative, no dates)."""
    args = ["gen/aesgen.py", "--backends", ",".join(request["backends"]),
            "--keys", ",".join(map(str, request["keys"]))]
    if request["widths"] is not None:
        args += ["--widths", req.format_widths(request["widths"])]
    if request.get("aliases", {}).get("ttable"):
        opts = dict(variants.BACKENDS[request["aliases"]["ttable"]].params)
        args += ["--ttable-key-loads", str(opts["key_loads"]), "--ttable-temps",
                 str(opts["temps"])]
    return " ".join(args)


def make_renderer():
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.join(GEN_DIR, "templates")),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True, autoescape=False)

    def render(template, **context):
        return env.get_template(template).render(generated_by=GENERATED_BY, **context)
    return render


def header_version():
    """(major, minor, patch) from runtime/include/aes_gen.h, the one place it is set."""
    with open(os.path.join(REPO_DIR, "runtime", "include", "aes_gen.h"), encoding="utf-8") as f:
        text = f.read()
    return tuple(int(re.search(rf"#define AES_GEN_VERSION_{part} (\d+)", text).group(1))
                 for part in ("MAJOR", "MINOR", "PATCH"))


def cpu_expr(isa):
    return " | ".join(f"AES_GEN_CPU_{name.upper()}" for name in isa) or "0"


def kernel_records(matrix):
    records = []
    for v in matrix:
        backend = variants.BACKENDS[v.backend]
        records.append({
            "symbol": v.symbol, "backend": v.backend, "backend_symbol": backend.symbol,
            "mode": v.mode.name, "dir": v.mode.direction, "mode_tag": v.mode.tag,
            "key_bits": v.key_bits, "rounds": v.rounds, "width": v.width,
            "isa": list(v.isa), "file": targets.emitter_of(v.backend).file_for(v),
            "arch": backend.arch, "shape": v.mode.shape})
    return records


def group_records(records, aliases):
    """Registry range of each (backend, mode, key size): first index, count and
    the widest width (its first kernel's); an alias gets its target's ranges."""
    groups = []
    for i, r in enumerate(records):
        key = (r["backend_symbol"], r["mode_tag"], r["key_bits"])
        if groups and groups[-1]["key"] == key:
            groups[-1]["count"] += 1
        else:
            groups.append({"key": key, "first": i, "count": 1})
    out = [{"backend": b, "mode": m, "key_bits": kb, "first": g["first"], "count": g["count"],
            "widest": records[g["first"]]["width"]}
           for g in groups for b, m, kb in [g["key"]]]
    for alias, target in sorted(aliases.items()):
        sym = variants.BACKENDS[target].symbol
        out += [dict(g, backend=variants.BACKENDS[alias].symbol) for g in out
                if g["backend"] == sym]
    return out


def summary_rows(records):
    rows = {}
    for k in records:
        row = rows.setdefault((k["backend"], k["mode_tag"]), (set(), set()))
        row[0].add(k["width"])
        row[1].add(k["key_bits"])
    return [{"backend": b, "mode": m, "widths": ", ".join(map(str, sorted(w))),
             "key_bits": ", ".join(map(str, sorted(kb)))} for (b, m), (w, kb) in rows.items()]


def generate(request):
    """All output files for `request` as {relative path: text}."""
    matrix = req.build_matrix(request, targets)
    names = req.emitted(req.expand(request["backends"]))
    for name in names:
        targets.emitter_of(name).check_bodies(variants.BACKENDS[name])
    aliases = req.aliases(request)
    render = make_renderer()
    records = kernel_records(matrix)
    files = {}
    # Sources to compile, grouped by the architecture condition that builds them.
    sources = {"": ["tables.c"]}
    options = []
    directories = {}
    functions = []  # what backends add beside their kernels (emitter.support)
    for name in names:
        backend, module = variants.BACKENDS[name], targets.emitter_of(name)
        mine = [v for v in matrix if v.backend == name]
        files.update(module.emit(mine, render, backend))
        support = module.support(backend, render)
        files.update(support["files"])
        functions += [{"symbol": s, "params": params, "what": what, "backend": name,
                       "needs": [f.upper() for f in variants.CPU_FEATURES if f in needs]}
                      for s, params, what, needs in support["functions"]]
        # The library compiles the kernels' files (not, say, tilegx's drop-in).
        kernel_files = sorted({module.file_for(v) for v in mine} | set(support["files"]))
        sources.setdefault(backend.arch, []).extend(kernel_files)
        if backend.compile_options:
            options.append({"files": kernel_files, "options": ";".join(backend.compile_options)})
        directory, what = module.directory
        directories.setdefault(directory, [what, []])[1].append(name)
    files["tables.h"] = render("tables.h.j2", rcon=aes_math.RCON)
    files["tables.c"] = render("tables.c.j2", sbox=aes_math.SBOX, inv_sbox=aes_math.INV_SBOX,
                               rcon=aes_math.RCON, te=aes_math.TE, td=aes_math.TD,
                               te_last=aes_math.TE_LAST, td_last=aes_math.TD_LAST,
                               vpaes=aes_math.VPAES,
                               pi_inverse=lambda pi: [pi.index(q) for q in range(16)])
    built = req.expand(request["backends"])
    backends = [{"b": b, "cpu": cpu_expr(b.isa), "built": name in built,
                 "alias": aliases.get(name, "")}
                for name, b in variants.BACKENDS.items()]
    isa_text = {name: " + ".join(variants.BACKENDS[name].isa) or
                ("x86-64" if variants.BACKENDS[name].arch else "C99 only") for name in names}
    shapes = [s for s in variants.SHAPES.values() if any(m.shape == s.name for m in variants.MODES)]
    files["kernels.h"] = render("kernels.h.j2", kernels=records, isa_text=isa_text,
                                arches=variants.ARCHES, shapes=shapes,
                                formats=variants.KEY_FORMATS,
                                key_format={n: variants.BACKENDS[n].key_format for n in names},
                                needs_files={n: variants.BACKENDS[n].needs_files for n in names},
                                shape_type={s.name: s.typedef for s in shapes},
                                functions=functions)
    files["kernels.inc"] = render("kernels.inc.j2", kernels=records,
                                  cpu={r["symbol"]: cpu_expr(r["isa"]) for r in records})
    files["groups.inc"] = render("groups.inc.j2", groups=group_records(records, aliases))
    params = {p.name: p.decl for s in shapes for p in s.params}
    files["modes.inc"] = render("modes.inc.j2", modes=variants.MODES, shapes=shapes,
                                params=params, families=variants.FAMILIES)
    files["backends.inc"] = render("backends.inc.j2", backends=backends,
                                   features=variants.CPU_FEATURES,
                                   formats=variants.KEY_FORMATS)
    files["sources.cmake"] = render("sources.cmake.j2", sources=sources, arches=variants.ARCHES,
                                    options=options,
                                    constant_time=any(variants.BACKENDS[n].constant_time
                                                      for n in names))
    api = list(variants.PUBLIC_FUNCTIONS) + [m.api for m in variants.MODES if m.api]
    files["aes_gen.map"] = render("aes_gen.map.j2", major=header_version()[0], kernels=[],
                                  api=api)
    files["aes_gen_kernels.map"] = render(
        "aes_gen.map.j2", major=header_version()[0], kernels=records + functions, api=api,
        kernels_node=kernels_node(files["kernels.h"]))
    files["README.md"] = render(
        "README.md.j2", kernels=records, summary=summary_rows(records),
        command=request_args(request),
        directories=sorted((d, w, ", ".join(n)) for d, (w, n) in directories.items()))
    manifest = {"generator": GENERATED_BY, "command": request_args(request), "request": request,
                "license": "Apache-2.0", "kernels": records}
    files["manifest.json"] = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    return files


def kernels_node(kernels_h):
    """The version node of the exported kernels: a hash of kernels.h (every
    kernel's name and signature, the key formats), so it changes with them."""
    return "AES_GEN_KERNELS_" + hashlib.sha256(kernels_h.encode()).hexdigest()[:12]


def existing_files(out_dir):
    found = {}
    for root, _, names in os.walk(out_dir):
        for name in names:
            path = os.path.join(root, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                found[os.path.relpath(path, out_dir).replace(os.sep, "/")] = f.read()
    return found


def write_tree(files, out_dir):
    """Make out_dir hold exactly `files`: it is tool-owned, stale files go."""
    if os.path.isdir(out_dir) and os.listdir(out_dir) and \
            not os.path.exists(os.path.join(out_dir, "manifest.json")):
        raise SystemExit(f"aesgen: refusing to overwrite {out_dir}: it has files but no "
                         "manifest.json, so it was not written by aesgen")
    for stale in set(existing_files(out_dir)) - set(files) if os.path.isdir(out_dir) else ():
        os.remove(os.path.join(out_dir, stale))
    for path, text in sorted(files.items()):
        full = os.path.join(out_dir, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    for root, dirs, names in os.walk(out_dir, topdown=False):
        if not dirs and not names and root != out_dir:
            os.rmdir(root)


def diff_trees(expected, actual):
    """Unified diff lines from `actual` (on disk) to `expected` (regenerated)."""
    lines = []
    for path in sorted(set(expected) | set(actual)):
        a, b = actual.get(path), expected.get(path)
        if a == b:
            continue
        if a is None:
            lines.append(f"missing: generated/{path}\n")
        elif b is None:
            lines.append(f"not generated (stale or hand-made): generated/{path}\n")
        else:
            lines += difflib.unified_diff(a.splitlines(True), b.splitlines(True),
                                          f"generated/{path} (committed)",
                                          f"generated/{path} (regenerated)")
    return lines


def recorded_request(out_dir):
    try:
        with open(os.path.join(out_dir, "manifest.json"), encoding="utf-8") as f:
            return json.load(f)["request"]
    except (OSError, ValueError, KeyError):
        return None


def parse_request(args, base):
    request = dict(base)
    if args.backends is not None:
        request["backends"] = req.parse_list(args.backends, "BACKENDS")
    if args.keys is not None:
        request["keys"] = req.parse_list(args.keys, "KEYS", int)
    if args.widths is not None:
        request["widths"] = req.parse_widths(args.widths)
    if args.ttable_key_loads is not None or args.ttable_temps is not None:
        request["aliases"] = {"ttable": req.ttable_alias(args.ttable_key_loads,
                                                         args.ttable_temps)}
    req.validate(request, targets)
    return request


def quiet_broken_pipe(write):
    """Run write(); a closed pipe (| head) ends it quietly.  Returns write()'s
    value, or 0 after a closed pipe."""
    try:
        status = write()
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def list_outputs(files, substring):
    """--list [SUBSTR]: the output files and the kernels, under headings; exit
    status 1 when nothing matches."""
    kernels = [k["symbol"] for k in json.loads(files["manifest.json"])["kernels"]]
    sections = [("files under generated/", sorted(p for p in files if substring in p)),
                ("kernels", [k for k in kernels if substring in k])]

    def write():
        for title, names in sections:
            if names:
                print(f"# {len(names)} {title}" + (f" matching '{substring}'" if substring else ""))
                for name in names:
                    print(name)
    if not any(names for _, names in sections):
        print(f"aesgen: nothing generated matches '{substring}'", file=sys.stderr)
        return 1
    return quiet_broken_pipe(write) or 0


def main(argv):
    parser = argparse.ArgumentParser(prog="aesgen.py", description=__doc__.split("\n")[0])
    parser.add_argument("--out", help="output directory (default: generated/)")
    parser.add_argument("--widths", help="parallel-mode widths: 1,2,4,8 for every backend "
                        "(each takes those it can hold), or per backend, "
                        "aesni:1,2,4,8+portable:1,2 (default: each backend's own)")
    parser.add_argument("--backends", help="backends to emit, e.g. portable")
    parser.add_argument("--keys", help="key sizes in bits, e.g. 128,192,256")
    parser.add_argument("--ttable-key-loads", type=int, choices=(32, 64),
                        help="the ttable backend's round-key loads (default: measured best)")
    parser.add_argument("--ttable-temps", type=int, choices=(0, 2),
                        help="the ttable backend's extra index registers (default: measured best)")
    parser.add_argument("--check", action="store_true",
                        help="regenerate (with the request in manifest.json) and diff; "
                        "exit 1 on any difference")
    parser.add_argument("--list", nargs="?", const="", metavar="SUBSTR",
                        help="list the output files and kernels, optionally filtered")
    parser.add_argument("--report", choices=sorted(targets.REPORTS),
                        help="tilegx: the TILE-Gx schedule's operations, bundles and cycles "
                        "per block against an aes_core.c-style baseline")
    args = parser.parse_args(argv)
    if args.report:
        return quiet_broken_pipe(lambda: print(targets.REPORTS[args.report].report())) or 0
    out = args.out or DEFAULT_OUT

    try:
        base = (recorded_request(out) or req.default()) if (args.check or args.list is not None) \
            else req.default()
        request = parse_request(args, base)
        files = generate(request)
    except variants.VariantError as e:
        print(f"aesgen: error: {e}", file=sys.stderr)
        return 2

    if args.list is not None:
        return list_outputs(files, args.list)
    if args.check:
        lines = diff_trees(files, existing_files(out) if os.path.isdir(out) else {})
        if lines:
            sys.stdout.writelines(lines)
            print(f"aesgen: generated/ differs from `{request_args(request)}`; "
                  "run `make gen` (with the same WIDTHS/BACKENDS/KEYS) and commit",
                  file=sys.stderr)
            return 1
        print(f"aesgen: generated/ matches `{request_args(request)}` ({len(files)} files)")
        return 0
    for name, modes, width, why in req.left_out(targets, req.expand(request["backends"]),
                                                request["widths"]):
        which = f"{name} ({', '.join(modes)})" if modes else name
        print(f"aesgen: note: {which} leaves out width {width}: {why}")
    if not any(variants.BACKENDS[n].constant_time for n in req.emitted(req.expand(
            request["backends"]))):
        print("aesgen: warning: no constant-time backend is requested: aes_gen_setkey will "
              "pick a table backend, whose memory accesses depend on the key and the data; "
              "CMake defaults AES_GEN_REQUIRE_CONSTANT_TIME to OFF for this generation",
              file=sys.stderr)
    write_tree(files, out)
    print(f"aesgen: wrote {len(files)} files, "
          f"{len(json.loads(files['manifest.json'])['kernels'])} kernels, to "
          f"{args.out or 'generated'}/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
