"""Execution backends: the lockstep SIMT simulator and the CUDA C++ emitter."""
