# SPDX-License-Identifier: Apache-2.0
"""x86-64 backends: one module each, on the shared skeletons of skeletons.py."""
