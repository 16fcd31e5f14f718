# SPDX-License-Identifier: Apache-2.0
"""Pieces of C the C emitters (portable, tilegx) share: the group loop and the
locals a body declares.  Lines are relative to the kernel body's indentation."""


def group_loop(width, body, countdown=False):
    """for each group of `width` blocks: body; src and dst advance past it.
    countdown (width 1): the loop counts nblocks down to 0.  A one-statement
    body takes no braces."""
    assert not countdown or width == 1
    step = 16 * width
    head = ("for (; nblocks; nblocks--, src += 16, dst += 16)" if countdown else
            f"for (; nblocks >= {width}; nblocks -= {width}, src += {step}, dst += {step})")
    if len(body) == 1:
        return [head] + ["    " + line for line in body]
    return [head + " {"] + ["    " + line for line in body] + ["}"]
