// tritongpu-optimize-dot-operands (NVIDIA), Triton 3.9's rewrites worked by hand:
// - @div: x / dense<3.0> becomes x * splat(approx_divf(1.0, 3.0)); the scalar constants go to the
//   top of the function (3.0 first, then 1.0 put before it), the dead tensor constant goes; a
//   division by a non-constant stays.
// - @wgmma: local_alloc(trans(b)) feeding a wgmma becomes memdesc_trans(local_alloc(b)): b's
//   blocked order is [1, 0] (64 f16 = 128 contiguous bytes: swizzle 128, not transposed), the
//   view flips `transposed`.
// - @hoist (HoistLayoutConversion, from Triton's source): convert(mulf(extf(load), ..)) to a dot
//   operand moves above the mulf and each extf to sit on the load (one convert per operand, as
//   the pattern makes them); not through a truncf, nor without a load or constant above.
// RUN: layoutkit opt %s --tritongpu-optimize-dot-operands | filecheck %s

// CHECK-LABEL: tt.func public @div
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:  %[[THREE:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-NOT:   dense<3.000000e+00>
// CHECK:       %[[R:.*]] = tt.approx_divf %[[ONE]], %[[THREE]] : f32
// CHECK-NEXT:  %[[S:.*]] = tt.splat %[[R]] : f32 -> tensor<64xf32, #ttg.blocked<{{.*}}>>
// CHECK-NEXT:  %y = arith.mulf %x, %[[S]] : tensor<64xf32, #ttg.blocked<{{.*}}>>
// CHECK-NEXT:  %z = arith.divf %y, %x
// CHECK-LABEL: tt.func public @hoist
// CHECK:       %e = arith.extf %l
// CHECK-NEXT:  %[[C0:.*]] = ttg.convert_layout %l : tensor<64x32xf16, #ttg.blocked<{{.*}}>> -> tensor<64x32xf16, #ttg.dot_op<{{.*}}>>
// CHECK-NEXT:  %[[E0:.*]] = arith.extf %[[C0]] : tensor<64x32xf16, #ttg.dot_op<{{.*}}>> to tensor<64x32xf32, #ttg.dot_op<{{.*}}>>
// CHECK-NEXT:  %[[C1:.*]] = ttg.convert_layout %l
// CHECK-NEXT:  %[[E1:.*]] = arith.extf %[[C1]]
// CHECK-NEXT:  %d = arith.mulf %[[E0]], %[[E1]] : tensor<64x32xf32, #ttg.dot_op<{{.*}}>>
// CHECK-NEXT:  %t = arith.truncf %e
// CHECK-NEXT:  %dt = ttg.convert_layout %t
// CHECK-NEXT:  %a = arith.addf %s, %s
// CHECK-NEXT:  %da = ttg.convert_layout %a
// CHECK-LABEL: tt.func public @wgmma
// CHECK-NOT:   tt.trans
// CHECK:       %[[A:.*]] = ttg.local_alloc %b : (tensor<64x64xf16, #ttg.blocked<{{.*}}>>) -> !ttg.memdesc<64x64xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>, #ttg.shared_memory>
// CHECK-NEXT:  %[[T:.*]] = ttg.memdesc_trans %[[A]] {order = array<i32: 1, 0>} : {{.*}} -> !ttg.memdesc<64x64xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>, #ttg.shared_memory>
// CHECK-NEXT:  ttng.warp_group_dot %a, %[[T]], %c

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#mma2 = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @div(%x: tensor<64xf32, #blocked>) {
    %c3 = arith.constant dense<3.000000e+00> : tensor<64xf32, #blocked>
    %y = arith.divf %x, %c3 : tensor<64xf32, #blocked>
    %z = arith.divf %y, %x : tensor<64xf32, #blocked>
    tt.return
  }
  tt.func public @hoist(%p: tensor<64x32x!tt.ptr<f16>, #blocked1>, %s: tensor<64x32xf32, #blocked1>) {
    %l = tt.load %p : tensor<64x32x!tt.ptr<f16>, #blocked1>
    %e = arith.extf %l : tensor<64x32xf16, #blocked1> to tensor<64x32xf32, #blocked1>
    %m = arith.mulf %e, %e : tensor<64x32xf32, #blocked1>
    %d = ttg.convert_layout %m : tensor<64x32xf32, #blocked1> -> tensor<64x32xf32, #ttg.dot_op<{opIdx = 0, parent = #mma2, kWidth = 2}>>
    %t = arith.truncf %e : tensor<64x32xf32, #blocked1> to tensor<64x32xf16, #blocked1>
    %dt = ttg.convert_layout %t : tensor<64x32xf16, #blocked1> -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma2, kWidth = 2}>>
    %a = arith.addf %s, %s : tensor<64x32xf32, #blocked1>
    %da = ttg.convert_layout %a : tensor<64x32xf32, #blocked1> -> tensor<64x32xf32, #ttg.dot_op<{opIdx = 0, parent = #mma2, kWidth = 2}>>
    tt.return
  }
  tt.func public @wgmma(%a: !ttg.memdesc<64x64xf16, #shared, #smem>, %b: tensor<64x64xf16, #blocked1>, %c: tensor<64x64xf32, #mma>) {
    %t = tt.trans %b {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked1> -> tensor<64x64xf16, #blocked2>
    %s = ttg.local_alloc %t : (tensor<64x64xf16, #blocked2>) -> !ttg.memdesc<64x64xf16, #shared1, #smem>
    %d = ttng.warp_group_dot %a, %s, %c {inputPrecision = 0 : i32} : !ttg.memdesc<64x64xf16, #shared, #smem> * !ttg.memdesc<64x64xf16, #shared1, #smem> -> tensor<64x64xf32, #mma>
    tt.return
  }
}
