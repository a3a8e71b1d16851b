"""The device helpers every emitted CUDA file starts with.

The emitted source includes no header, so NVRTC compiles it without a CUDA toolkit: f16 and
bf16 values are kept as their 16 bits (``f16_t`` / ``bf16_t``) and converted with one PTX
``cvt`` each; arithmetic on them runs in f32 and rounds back to nearest-even, which for
``+ - * /`` gives the exact f16 result (f32 has more than 2 * 11 + 2 significand bits).
"""

from __future__ import annotations


def _mma_function(k: int, element: str) -> str:
    """The prelude function for ``mma.sync.aligned.m16n8k{k}.row.col.f32.{element}.{element}.f32``.

    Per lane, A holds k / 2 16-bit values in k / 4 registers, B k / 4 values in k / 8 registers
    (element 2r in the low half of register r), C and D 4 f32 values; the PTX operands are
    numbered D, A, B, C: for k = 16, ``{%0..%3}, {%4..%7}, {%8, %9}, {%10..%13}``.
    """
    bits = "f16_t" if element == "f16" else "bf16_t"
    a_registers, b_registers = k // 4, k // 8
    first = {"a": 4, "b": 4 + a_registers, "c": 4 + a_registers + b_registers}
    counts = {"a": a_registers, "b": b_registers, "c": 4}

    def operands(name: str) -> str:
        return "{" + ", ".join(f"%{first[name] + r}" for r in range(counts[name])) + "}"

    def packed(name: str, registers: int) -> str:
        return ", ".join(f'"r"(pack_16x2({name}[{2 * r}], {name}[{2 * r + 1}]))' for r in range(registers))

    instruction = f"mma.sync.aligned.m16n8k{k}.row.col.f32.{element}.{element}.f32"
    return (
        f"__device__ __forceinline__ Vec<float, 4> mma_m16n8k{k}_{element}(\n"
        f"    const Vec<{bits}, {2 * a_registers}>& a, const Vec<{bits}, {2 * b_registers}>& b, const Vec<float, 4>& c) {{\n"
        "  Vec<float, 4> d;\n"
        f'  asm volatile("{instruction} {{%0, %1, %2, %3}}, {operands("a")}, {operands("b")}, {operands("c")};"\n'
        '               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])\n'
        f"               : {packed('a', a_registers)},\n"
        f"                 {packed('b', b_registers)},\n"
        '                 "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));\n'
        "  return d;\n"
        "}\n"
    )


# arith.minimumf / maximumf (IEEE 754-2019 minimum / maximum, as MLIR defines them): the
# canonical NaN when either operand is NaN, and -0.0 < +0.0. Of two equal operands only +-0
# differ in their bits: OR keeps the sign bit (min), AND drops it (max); other equal values
# have equal bits. Plain C++ on the bit-cast intrinsics, so a host stand-in can run it as is.
MINIMUM_MAXIMUM = r"""// IEEE minimum / maximum (arith.minimumf / arith.maximumf): NaN if either is NaN, -0 < +0
__device__ __forceinline__ float minimumf(float a, float b) {
  if (a != a || b != b) return __int_as_float(0x7fc00000);
  return a == b ? __int_as_float(__float_as_int(a) | __float_as_int(b)) : (a < b ? a : b);
}
__device__ __forceinline__ float maximumf(float a, float b) {
  if (a != a || b != b) return __int_as_float(0x7fc00000);
  return a == b ? __int_as_float(__float_as_int(a) & __float_as_int(b)) : (a > b ? a : b);
}
__device__ __forceinline__ double minimumf(double a, double b) {
  if (a != a || b != b) return __longlong_as_double(0x7ff8000000000000ll);
  return a == b ? __longlong_as_double(__double_as_longlong(a) | __double_as_longlong(b)) : (a < b ? a : b);
}
__device__ __forceinline__ double maximumf(double a, double b) {
  if (a != a || b != b) return __longlong_as_double(0x7ff8000000000000ll);
  return a == b ? __longlong_as_double(__double_as_longlong(a) & __double_as_longlong(b)) : (a > b ? a : b);
}
"""

PRELUDE = r"""// ---- layoutkit CUDA prelude: 16-bit floats as bits, small vectors, warp helpers ----
typedef unsigned short f16_t;   // IEEE binary16, as bits
typedef unsigned short bf16_t;  // bfloat16, as bits

__device__ __forceinline__ float f16_to_float(f16_t h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ f16_t float_to_f16(float f) {
  f16_t h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
__device__ __forceinline__ float bf16_to_float(bf16_t h) {
  return __uint_as_float(static_cast<unsigned>(h) << 16);
}
__device__ __forceinline__ bf16_t float_to_bf16(float f) {
  bf16_t h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
// f64 -> f16 / bf16 rounded once (through f32 would round twice: 1 + 2^-11 + 2^-40 -> 1, not
// 1 + 2^-10). bf16 goes through f32 rounded to odd, which then rounds to bf16 exactly.
__device__ __forceinline__ f16_t double_to_f16(double d) {
  f16_t h;
  asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d));
  return h;
}
__device__ __forceinline__ bf16_t double_to_bf16(double d) {
  float toward_zero;
  asm("cvt.rz.f32.f64 %0, %1;" : "=f"(toward_zero) : "d"(d));
  const unsigned sticky = static_cast<double>(toward_zero) != d ? 1u : 0u;
  return float_to_bf16(__uint_as_float(__float_as_uint(toward_zero) | sticky));
}
// two 16-bit values in one 32-bit register, `low` in bits 0..15 (mma fragment order)
__device__ __forceinline__ unsigned pack_16x2(unsigned short low, unsigned short high) {
  return static_cast<unsigned>(low) | (static_cast<unsigned>(high) << 16);
}

// a vector<NxT> value: N elements in registers
template <typename T, int N>
struct Vec {
  T e[N];
  __device__ __forceinline__ T& operator[](int i) { return e[i]; }
  __device__ __forceinline__ const T& operator[](int i) const { return e[i]; }
  __device__ __forceinline__ static Vec splat(T x) {
    Vec v;
#pragma unroll
    for (int i = 0; i < N; ++i) v.e[i] = x;
    return v;
  }
  template <int M>
  __device__ __forceinline__ Vec<T, M> part(int start) const {
    Vec<T, M> v;
#pragma unroll
    for (int i = 0; i < M; ++i) v.e[i] = e[start + i];
    return v;
  }
  template <int M>
  __device__ __forceinline__ Vec with_part(int start, const Vec<T, M>& p) const {
    Vec v = *this;
#pragma unroll
    for (int i = 0; i < M; ++i) v.e[start + i] = p.e[i];
    return v;
  }
};

// the bytes of one value as another type of the same size (vector.bitcast)
template <typename To, typename From>
__device__ __forceinline__ To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast needs types of one size");
  To to;
  memcpy(&to, &from, sizeof(To));
  return to;
}

// one wide memory access (Wide = float4, uint4, uint2, ...) moving a whole Vec
template <typename Wide, typename T, int N>
__device__ __forceinline__ Vec<T, N> load_vector(const T* address) {
  static_assert(sizeof(Wide) == sizeof(T) * N, "wide type must match the vector size");
  Vec<T, N> v;
  *reinterpret_cast<Wide*>(v.e) = *reinterpret_cast<const Wide*>(address);
  return v;
}
template <typename Wide, typename T, int N>
__device__ __forceinline__ void store_vector(T* address, const Vec<T, N>& v) {
  static_assert(sizeof(Wide) == sizeof(T) * N, "wide type must match the vector size");
  *reinterpret_cast<Wide*>(address) = *reinterpret_cast<const Wide*>(v.e);
}

// D = A B + C by one warp (PTX mma.sync): per lane, A's fragment holds 2 * (m k / 64)
// 16-bit values, two per 32-bit register, element 2r in the low half of register r; B likewise;
// C and D hold 4 f32 values (rows group and group + 8, columns 2 * (lane % 4) + 0, 1).
""" + "".join(_mma_function(k, element) for k in (16, 8) for element in ("f16", "bf16")) + r"""
__device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}
__device__ __forceinline__ unsigned linear_thread_id() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

""" + MINIMUM_MAXIMUM + r"""
// integer division rounding toward -inf / +inf (arith.floordivsi / arith.ceildivsi)
template <typename T>
__device__ __forceinline__ T floordiv(T a, T b) { T q = a / b; return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q; }
template <typename T>
__device__ __forceinline__ T ceildiv(T a, T b) { T q = a / b; return (q * b != a && ((a < 0) == (b < 0))) ? q + 1 : q; }
// ---- end of prelude ----
"""
