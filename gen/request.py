# SPDX-License-Identifier: Apache-2.0
"""What to generate: the request (BACKENDS, WIDTHS, KEYS) parsed, checked as a
whole before anything is written, and expanded into the variant matrix.

A request is a dict, as generated/manifest.json records it:
    {"backends": [...], "keys": [...], "widths": None | {"*": [...]} | {name: [...]},
     "aliases": {alias: backend}}   (aliases optional)
The widths are the parallel modes'; each (backend, mode) takes those of its
list that its emitter's planner can hold.  The planner is passed in (this
module imports no emitter): planner.modes(name), the modes a backend has
kernels for, and planner.width_problem(name, mode, width), "" or the reason
the kernel cannot hold the width (gen/targets.py is one).
"""

import variants
from variants import BACKENDS, KEY_BITS, REQUIRED_BACKEND, VariantError, check_unique


def default():
    return {"backends": list(variants.DEFAULT_BACKENDS), "keys": list(KEY_BITS), "widths": None}


def parse_list(text, what, convert=str):
    """'1,2,4' -> [1, 2, 4]; a clear error names `what` and the bad item."""
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or any(not item for item in items):
        raise VariantError(f"{what}: empty item in '{text}'")
    out = []
    for item in items:
        try:
            out.append(convert(item))
        except ValueError:
            kind = "an integer" if convert is int else "a name"
            raise VariantError(f"{what}: '{item}' is not {kind} (in '{text}')") from None
    return out


def parse_widths(text):
    """WIDTHS: '1,2,4' for every backend, or per backend
    'aesni:1,2,4,8+portable:1,2' (a backend not named keeps its defaults).
    Returns {"*": [...]} or {backend: [...], ...}."""
    if ":" not in text:
        return {"*": parse_list(text, "WIDTHS", int)}
    out = {}
    for part in text.split("+"):
        name, sep, widths = part.partition(":")
        name = name.strip()
        if not sep or not name:
            raise VariantError(f"WIDTHS: '{part}' is not BACKEND:W,W,... "
                               "(per-backend lists are joined with '+')")
        if name in out:
            raise VariantError(f"WIDTHS: {name} is given widths twice")
        out[name] = parse_list(widths, f"WIDTHS for {name}", int)
    return out


def format_widths(widths):
    if widths is None:
        return None
    if set(widths) == {"*"}:
        return ",".join(map(str, widths["*"]))
    return "+".join(f"{name}:{','.join(map(str, ws))}" for name, ws in sorted(widths.items()))


def ttable_alias(key_loads=None, temps=None):
    """The combination `ttable` names: TTABLE_DEFAULT unless a switch is given."""
    opts = dict(BACKENDS[variants.TTABLE_DEFAULT].params)
    if key_loads is not None:
        opts["key_loads"] = key_loads
    if temps is not None:
        opts["temps"] = temps
    if opts["key_loads"] not in (32, 64) or opts["temps"] not in (0, 2):
        raise VariantError(f"--ttable-key-loads takes 32 or 64, --ttable-temps 0 or 2 "
                           f"(given {opts['key_loads']}, {opts['temps']})")
    return f"ttable-k{opts['key_loads']}t{opts['temps']}"


def expand(backends):
    """The request's backends with the members of any alias it names."""
    out = list(backends)
    for name in backends:
        out += [m for m, b in BACKENDS.items() if b.family == name and m not in out]
    return out


def aliases(request):
    """{alias: the backend whose kernels it names} for the request."""
    names = expand(request["backends"])
    return {n: request.get("aliases", {}).get(n) or BACKENDS[n].alias_of
            for n in names if BACKENDS[n].alias_of}


def emitted(backends):
    """The backends of a list that have kernels of their own (not aliases), in
    preference order."""
    return [n for n in BACKENDS if n in backends and BACKENDS[n].emitter]


def parallel_modes(planner, name):
    return [m for m in planner.modes(name) if m.parallel]


def requested_widths(backend, widths, mode=None):
    """The widths a request asks of a backend's parallel modes (of one mode if
    given): its own list, the list for every backend, or its defaults."""
    if widths is None or ("*" not in widths and backend not in widths):
        b = BACKENDS[backend]
        return list(b.default_widths_for(mode) if mode else b.default_widths)
    return list(widths.get(backend, widths.get("*")))


def mode_widths(planner, backend, mode, widths):
    """The widths of one (backend, mode): width 1 for a serial mode, else the
    requested ones its kernel can hold."""
    if not mode.parallel:
        return [1]
    return [w for w in requested_widths(backend, widths, mode)
            if not planner.width_problem(backend, mode, w)]


def backend_problem(planner, name, width):
    """"" if some parallel mode of the backend holds width, else the first one's reason."""
    reasons = [planner.width_problem(name, m, width) for m in parallel_modes(planner, name)]
    return "" if not all(reasons) else reasons[0] if reasons else "it has no parallel modes"


def left_out(planner, backends, widths):
    """[(backend, modes or None for all, width, reason)]: the widths of a
    request's lists that a backend, or some of its modes, cannot hold."""
    if widths is None:
        return []
    out = []
    for name in emitted(backends):
        if name not in widths and "*" not in widths:
            continue
        modes = parallel_modes(planner, name)
        for width in requested_widths(name, widths):
            why = {m.tag: planner.width_problem(name, m, width) for m in modes}
            skipped = [tag for tag, reason in why.items() if reason]
            if skipped:
                out.append((name, None if len(skipped) == len(modes) else skipped, width,
                            why[skipped[0]]))
    return out


def _check_width_list(widths, source, name=None):
    for width in widths:
        if width < 1:
            raise VariantError(f"{source}: {width} is not a width (a width is a positive "
                               "number of blocks)")
    if 1 not in widths:
        who = f"{name} needs" if name else "must include"
        raise VariantError(f"{source}: {who} width 1 (the serial modes and the last blocks "
                           "of every message use it)")
    check_unique(widths, source)


def validate(request, planner):
    """Raise VariantError unless the request can be generated as a whole."""
    variants.validate_declarations()
    backends, widths, keys = request["backends"], request["widths"], request["keys"]
    for name in backends:
        if name not in BACKENDS:
            raise VariantError(f"BACKENDS: unknown backend '{name}' "
                               f"(the generator emits: {', '.join(BACKENDS)})")
    check_unique(backends, "BACKENDS")
    names = expand(backends)
    if REQUIRED_BACKEND not in names:
        raise VariantError(f"BACKENDS: must include '{REQUIRED_BACKEND}', the runtime's "
                           "fallback on CPUs without the other backends' features")
    for key_bits in keys:
        if key_bits not in KEY_BITS:
            raise VariantError(f"KEYS: {key_bits} is not an AES key size "
                               f"(one of {', '.join(map(str, KEY_BITS))})")
    check_unique(keys, "KEYS")
    for alias, target in aliases(request).items():
        if target not in names:
            raise VariantError(f"BACKENDS: {alias} names {target}, which is not generated")
    for name in names:
        b = BACKENDS[name]
        if not b.serial_modes and not any(BACKENDS[o].serial_modes and BACKENDS[o].emitter and
                                          BACKENDS[o].key_format == b.key_format
                                          for o in names):
            raise VariantError(f"BACKENDS: {name} takes its serial modes from a backend with "
                               f"key format {b.key_format}; none is requested")
    for name in emitted(names):
        # Width 1 finishes every message: every kernel must hold it, and a
        # backend's declared defaults must be held by some mode.
        for mode in parallel_modes(planner, name):
            why = planner.width_problem(name, mode, 1)
            if why:
                raise VariantError(f"backend {name}: mode {mode.tag} cannot hold width 1: {why}")
        for width in BACKENDS[name].default_widths:
            why = backend_problem(planner, name, width)
            if why:
                raise VariantError(f"backend {name}: default width {width}: {why}")
    if widths is None:
        return
    for name in widths:
        if name != "*" and name not in names:
            raise VariantError(f"WIDTHS: widths for '{name}', which is not among the "
                               f"backends generated ({', '.join(names)})")
        if name != "*" and not BACKENDS[name].emitter:
            raise VariantError(f"WIDTHS: {name} names the kernels of "
                               f"{aliases(request)[name]}; give the widths for that")
    for name in emitted(names):
        if name in widths:
            source = f"WIDTHS for {name}"
            _check_width_list(widths[name], source, name)
            for width in widths[name]:
                why = backend_problem(planner, name, width)
                if why:
                    raise VariantError(f"{source}: {name} cannot hold width {width}: {why}")
    if "*" in widths:
        _check_width_list(widths["*"], "WIDTHS")
        candidates = [n for n in emitted(names) if n not in widths]
        for width in widths["*"]:
            reasons = [(n, backend_problem(planner, n, width)) for n in candidates]
            if candidates and all(why for _, why in reasons):
                name, why = reasons[0]
                raise VariantError(f"WIDTHS: no backend can hold width {width} ({name}: {why})")


def build_matrix(request, planner):
    """All variants for the request, in registry order: backends in preference
    order, then MODES order, then key size.  Within one (backend, mode, key
    size) the widths run widest first: the runtime's mode drivers rely on that
    order (tests check it)."""
    validate(request, planner)
    out = []
    for name in emitted(expand(request["backends"])):
        for mode in planner.modes(name):
            for key_bits in sorted(request["keys"]):
                for width in sorted(mode_widths(planner, name, mode, request["widths"]),
                                    reverse=True):
                    out.append(variants.Variant(name, mode, key_bits, width))
    return out
