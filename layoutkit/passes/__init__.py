"""Compiler passes over the kernel IR."""
