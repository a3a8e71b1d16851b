"""Runs emitted CUDA kernels on the CPU: the kernel bodies exactly as emit_cuda prints them,
compiled by g++ against a small host stand-in for CUDA (one std::thread per GPU thread,
std::barrier for __syncthreads, a per-warp exchange for __shfl_*_sync with PTX's segment
rules). Only the prelude is swapped for a host version (its f16/bf16 conversions are PTX);
the minimumf / maximumf helpers are the device prelude's own text.

It lets the tests compare what the emitted C++ computes with numpy, with no GPU.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile

import numpy as np

from layoutkit.backends.cuda.prelude import MINIMUM_MAXIMUM  # device C++ the host runs as is

HOST_PRELUDE = r"""
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>
#include <algorithm>

struct HostDim3 { unsigned x = 0, y = 0, z = 0; };
thread_local HostDim3 threadIdx;
thread_local unsigned host_linear_tid;
HostDim3 blockIdx, blockDim, gridDim;
const int warpSize = 32;
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(n)

static std::barrier<>* host_block_barrier;
inline void __syncthreads() { host_block_barrier->arrive_and_wait(); }

struct HostWarp { std::barrier<>* barrier; uint64_t slots[32]; };
static std::vector<HostWarp> host_warps;

using std::max; using std::min;
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
inline float __uint_as_float(unsigned i) { float f; std::memcpy(&f, &i, 4); return f; }
inline double __longlong_as_double(long long i) { double f; std::memcpy(&f, &i, 8); return f; }
inline long long __double_as_longlong(double f) { long long i; std::memcpy(&i, &f, 8); return i; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }

// PTX shfl.sync: lanes grouped in segments of `width`; an out-of-range source gives your own value
enum HostShuffle { HOST_IDX, HOST_UP, HOST_DOWN, HOST_BFLY };
template <typename T>
T host_shuffle(HostShuffle kind, T value, int b, int width) {
  unsigned lane = host_linear_tid % 32, warp = host_linear_tid / 32;
  HostWarp& w = host_warps[warp];
  uint64_t bits = 0; std::memcpy(&bits, &value, sizeof(T));
  w.slots[lane] = bits;
  w.barrier->arrive_and_wait();
  b &= 31;  // PTX reads the lane or offset operand modulo 32 (bval[4:0] = b[4:0])
  int segmask = 32 - width, min_lane = lane & segmask, max_lane = min_lane | (31 & ~segmask);
  int j = lane; bool ok;
  switch (kind) {
    case HOST_IDX: j = min_lane | (b & ~segmask); ok = j <= max_lane; break;
    case HOST_UP: j = lane - b; ok = j >= min_lane; break;
    case HOST_DOWN: j = lane + b; ok = j <= max_lane; break;
    default: j = lane ^ b; ok = j <= max_lane; break;
  }
  uint64_t got = w.slots[ok ? j : lane];
  w.barrier->arrive_and_wait();
  T result; std::memcpy(&result, &got, sizeof(T));
  return result;
}
template <typename T> T __shfl_xor_sync(unsigned, T v, int b, int width = 32) { return host_shuffle(HOST_BFLY, v, b, width); }
template <typename T> T __shfl_sync(unsigned, T v, int b, int width = 32) { return host_shuffle(HOST_IDX, v, b, width); }
template <typename T> T __shfl_up_sync(unsigned, T v, int b, int width = 32) { return host_shuffle(HOST_UP, v, b, width); }
template <typename T> T __shfl_down_sync(unsigned, T v, int b, int width = 32) { return host_shuffle(HOST_DOWN, v, b, width); }

typedef unsigned short f16_t;
typedef unsigned short bf16_t;
inline float f16_to_float(f16_t h) { _Float16 f; std::memcpy(&f, &h, 2); return (float)f; }
inline f16_t float_to_f16(float x) { _Float16 f = (_Float16)x; f16_t h; std::memcpy(&h, &f, 2); return h; }
inline float bf16_to_float(bf16_t h) { return __uint_as_float((unsigned)h << 16); }
inline bf16_t float_to_bf16(float x) {
  unsigned u = (unsigned)__float_as_int(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (bf16_t)((u >> 16) | 0x40);
  return (bf16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
inline f16_t double_to_f16(double x) { _Float16 f = (_Float16)x; f16_t h; std::memcpy(&h, &f, 2); return h; }
inline bf16_t double_to_bf16(double x) {  // round to odd into f32, then to nearest even
  float toward_zero = (float)x;
  if (std::fabs((double)toward_zero) > std::fabs(x)) toward_zero = std::nextafter(toward_zero, 0.0f);
  unsigned sticky = (double)toward_zero != x ? 1u : 0u;
  return float_to_bf16(__uint_as_float((unsigned)__float_as_int(toward_zero) | sticky));
}
inline unsigned pack_16x2(unsigned short low, unsigned short high) { return (unsigned)low | ((unsigned)high << 16); }
inline unsigned lane_id() { return host_linear_tid % 32; }
inline unsigned linear_thread_id() { return host_linear_tid; }
""" + MINIMUM_MAXIMUM + r"""template <typename T> T floordiv(T a, T b) { T q = a / b; return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q; }
template <typename T> T ceildiv(T a, T b) { T q = a / b; return (q * b != a && ((a < 0) == (b < 0))) ? q + 1 : q; }

template <typename T, int N>
struct Vec {
  T e[N];
  T& operator[](int i) { return e[i]; }
  const T& operator[](int i) const { return e[i]; }
  static Vec splat(T x) { Vec v; for (int i = 0; i < N; ++i) v.e[i] = x; return v; }
  template <int M> Vec<T, M> part(int start) const { Vec<T, M> v; for (int i = 0; i < M; ++i) v.e[i] = e[start + i]; return v; }
  template <int M> Vec with_part(int start, const Vec<T, M>& p) const { Vec v = *this; for (int i = 0; i < M; ++i) v.e[start + i] = p.e[i]; return v; }
};
struct float2 { float x, y; }; struct float4 { float x, y, z, w; };
struct int2 { int x, y; }; struct int4 { int x, y, z, w; };
struct uint2 { unsigned x, y; }; struct uint4 { unsigned x, y, z, w; };
// mma.sync on the host: the warp's lanes pool their fragments, each lane computes its 4 results.
// Fragment layout from the PTX ISA (lane = 4 * group + pair), written here independently:
//   A element i: row group + 8 * ((i / 2) % 2), column 2 * pair + i % 2 + 8 * (i / 4)
//   B element i: k row 2 * pair + i % 2 + 8 * (i / 2), column group
//   C, D element i: row group + 8 * (i / 2), column 2 * pair + i % 2
struct HostMmaSlots { float a[32][8]; float b[32][4]; };
static std::vector<HostMmaSlots> host_mma_slots;
template <int K, int NA, int NB>
Vec<float, 4> host_mma(const Vec<unsigned short, NA>& a, const Vec<unsigned short, NB>& b,
                       const Vec<float, 4>& c, bool bf16) {
  unsigned lane = host_linear_tid % 32, warp = host_linear_tid / 32;
  HostMmaSlots& slots = host_mma_slots[warp];
  for (int i = 0; i < NA; ++i) slots.a[lane][i] = bf16 ? bf16_to_float(a[i]) : f16_to_float(a[i]);
  for (int i = 0; i < NB; ++i) slots.b[lane][i] = bf16 ? bf16_to_float(b[i]) : f16_to_float(b[i]);
  host_warps[warp].barrier->arrive_and_wait();
  float A[16][16] = {}, B[16][8] = {};
  for (int l = 0; l < 32; ++l) {
    int group = l / 4, pair = l % 4;
    for (int i = 0; i < NA; ++i) A[group + 8 * ((i / 2) % 2)][2 * pair + i % 2 + 8 * (i / 4)] = slots.a[l][i];
    for (int i = 0; i < NB; ++i) B[2 * pair + i % 2 + 8 * (i / 2)][group] = slots.b[l][i];
  }
  host_warps[warp].barrier->arrive_and_wait();
  Vec<float, 4> d;
  int group = lane / 4, pair = lane % 4;
  for (int i = 0; i < 4; ++i) {
    int row = group + 8 * (i / 2), col = 2 * pair + i % 2;
    double sum = c[i];
    for (int k = 0; k < K; ++k) sum += (double)A[row][k] * B[k][col];
    d[i] = (float)sum;
  }
  return d;
}
Vec<float, 4> mma_m16n8k16_f16(const Vec<f16_t, 8>& a, const Vec<f16_t, 4>& b, const Vec<float, 4>& c) { return host_mma<16>(a, b, c, false); }
Vec<float, 4> mma_m16n8k16_bf16(const Vec<bf16_t, 8>& a, const Vec<bf16_t, 4>& b, const Vec<float, 4>& c) { return host_mma<16>(a, b, c, true); }
Vec<float, 4> mma_m16n8k8_f16(const Vec<f16_t, 4>& a, const Vec<f16_t, 2>& b, const Vec<float, 4>& c) { return host_mma<8>(a, b, c, false); }
Vec<float, 4> mma_m16n8k8_bf16(const Vec<bf16_t, 4>& a, const Vec<bf16_t, 2>& b, const Vec<float, 4>& c) { return host_mma<8>(a, b, c, true); }

template <typename To, typename From>
To bit_cast(const From& from) { static_assert(sizeof(To) == sizeof(From)); To to; std::memcpy(&to, &from, sizeof(To)); return to; }
template <typename Wide, typename T, int N>
Vec<T, N> load_vector(const T* address) {
  static_assert(sizeof(Wide) == sizeof(T) * N, "wide type must match the vector size");
  if (reinterpret_cast<uintptr_t>(address) % alignof(Wide) != 0) __builtin_trap();  // a GPU faults too
  Vec<T, N> v; std::memcpy(v.e, address, sizeof(Wide)); return v;
}
template <typename Wide, typename T, int N>
void store_vector(T* address, const Vec<T, N>& v) {
  if (reinterpret_cast<uintptr_t>(address) % alignof(Wide) != 0) __builtin_trap();
  std::memcpy(address, v.e, sizeof(Wide));
}
"""

LAUNCHER = r"""
extern "C" int host_launch(void** args, unsigned gx, unsigned gy, unsigned gz,
                           unsigned bx, unsigned by, unsigned bz) {
  gridDim = {gx, gy, gz};
  blockDim = {bx, by, bz};
  unsigned threads = bx * by * bz;
  std::barrier<> block_barrier(threads);
  host_block_barrier = &block_barrier;
  std::vector<std::barrier<>*> warp_barriers;
  host_warps.assign((threads + 31) / 32, HostWarp{});
  host_mma_slots.assign(host_warps.size(), HostMmaSlots{});
  for (unsigned w = 0; w < host_warps.size(); ++w) {
    unsigned members = std::min(32u, threads - 32 * w);
    warp_barriers.push_back(new std::barrier<>(members));
    host_warps[w].barrier = warp_barriers.back();
  }
  for (unsigned z = 0; z < gz; ++z) for (unsigned y = 0; y < gy; ++y) for (unsigned x = 0; x < gx; ++x) {
    blockIdx = {x, y, z};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([=] {
        threadIdx = {t % bx, (t / bx) % by, t / (bx * by)};
        host_linear_tid = t;
        KERNEL_CALL;
      });
    }
    for (auto& thread : pool) thread.join();
  }
  for (auto* barrier : warp_barriers) delete barrier;
  return 0;
}
"""


def compiler_available() -> bool:
    return shutil.which("g++") is not None


def _signature(source: str, kernel: str) -> list[tuple[str, str]]:
    match = re.search(rf'extern "C" __global__ void(?: __launch_bounds__\(\d+\))? {kernel}\(([^)]*)\)', source)
    assert match, f"kernel {kernel} not in the emitted source"
    params = []
    for param in match.group(1).split(", "):
        c_type, name = param.rsplit(" ", 1)
        params.append((c_type, name))
    return params


_CACHE: dict[str, ctypes.CDLL] = {}
_BUILD_DIRECTORY = tempfile.TemporaryDirectory(prefix="layoutkit-host-")  # removed at exit


def run_on_host(source: str, prelude: str, kernel: str, grid: tuple[int, ...], block: tuple[int, ...],
                arrays: list[np.ndarray], flags: tuple[str, ...] = ()) -> None:
    """Run ``kernel`` of the emitted ``source`` with ``arrays`` (one per memref argument, in
    order; dynamic sizes are taken from their shapes), writing results into the arrays.
    ``flags`` go to g++ (e.g. ``-fsanitize=undefined``)."""
    assert prelude in source, "the emitted source should carry the prelude verbatim"
    params = _signature(source, kernel)
    call_args, values, holders, array_index, current = [], [], [], 0, None
    for position, (c_type, name) in enumerate(params):
        if c_type.endswith("*"):
            current = np.ascontiguousarray(arrays[array_index])
            assert current is arrays[array_index], "pass C-contiguous arrays"
            array_index += 1
            values.append(current.ctypes.data)
            call_args.append(f"({c_type})args[{position}]")
        else:
            size = re.fullmatch(r"\w+_size(\d+)", name)
            assert size and current is not None, f"unexpected scalar parameter {c_type} {name}"
            holder = ctypes.c_int(current.shape[int(size.group(1))])
            holders.append(holder)
            values.append(ctypes.addressof(holder))
            call_args.append(f"*({c_type}*)args[{position}]")
    program = (HOST_PRELUDE + source.replace(prelude, "")
               + LAUNCHER.replace("KERNEL_CALL", f"{kernel}({', '.join(call_args)})"))
    key = hashlib.sha256((program + " ".join(flags)).encode()).hexdigest()
    library = _CACHE.get(key)
    if library is None:
        directory = _BUILD_DIRECTORY.name
        cpp, so = os.path.join(directory, f"{key[:16]}.cpp"), os.path.join(directory, f"{key[:16]}.so")
        with open(cpp, "w") as handle:
            handle.write(program)
        done = subprocess.run(["g++", "-std=c++20", "-O1", "-shared", "-fPIC", "-pthread",
                               "-w", *flags, "-o", so, cpp], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr[:3000]
        library = _CACHE[key] = ctypes.CDLL(so)
    grid3 = tuple(grid) + (1,) * (3 - len(grid))
    block3 = tuple(block) + (1,) * (3 - len(block))
    pointers = (ctypes.c_void_p * len(values))(*values)
    assert library.host_launch(pointers, *[ctypes.c_uint(v) for v in grid3 + block3]) == 0
