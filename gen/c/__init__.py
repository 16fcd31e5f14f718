# SPDX-License-Identifier: Apache-2.0
"""C backends: portable (and, to come, TILE-Gx)."""
