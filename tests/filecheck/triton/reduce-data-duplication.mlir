// tritongpu-reduce-data-duplication, Triton 3.9's rule worked by hand. A conversion to a dot
// operand that crosses warps goes through shared memory as local_alloc + local_load, swizzled
// for mma v2 with K = the size of the contiguous dim, b = element bits:
// perPhase = max(1024 / (b K), 1), vec = 4 kWidth, stride = 8 (swapped when the contiguous dim
// is not the operand's K), maxPhase = max(min(stride, 1024 / (vec b)) / perPhase, 1).
// - @ab A 64x32xf16 (order [1, 0], K = 32, kWidth 2): perPhase 2, vec 8, maxPhase min(8, 8) / 2 = 4;
//       B 32x64xf16 (order [1, 0] is N, not K: swap, both 8): perPhase 1, vec 8, maxPhase 8.
// - @colmajor A 32x32xf32 stored column-major (order [0, 1], kWidth 1): vec 4 <-> stride 8
//   swapped: vec 8, perPhase 1024 / (32 * 32) = 1, maxPhase min(4, 1024 / 256) = 4.
// - @keep: an mma result to operand A of the same mma with warps [4, 1] only moves registers
//   (each warp already holds its rows, every K): the convert_layout stays.
// RUN: layoutkit opt %s --tritongpu-reduce-data-duplication | filecheck %s

// CHECK-LABEL: tt.func public @ab
// CHECK:      %[[SA:.*]] = ttg.local_alloc %a : (tensor<64x32xf16, #ttg.blocked<{{.*}}>>) -> !ttg.memdesc<64x32xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>, #ttg.shared_memory>
// CHECK-NEXT: %[[LA:.*]] = ttg.local_load %[[SA]] : {{.*}} -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, {{.*}}kWidth = 2}>>
// CHECK-NEXT: %[[SB:.*]] = ttg.local_alloc %b : {{.*}} -> !ttg.memdesc<32x64xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>, #ttg.shared_memory>
// CHECK-NEXT: %[[LB:.*]] = ttg.local_load %[[SB]] : {{.*}} -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, {{.*}}kWidth = 2}>>
// CHECK-NEXT: tt.dot %[[LA]], %[[LB]], %c
// CHECK-NOT:  ttg.convert_layout
// CHECK-LABEL: tt.func public @colmajor
// CHECK:      ttg.local_alloc %a : {{.*}} -> !ttg.memdesc<32x32xf32, #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [0, 1]}>, #ttg.shared_memory>
// CHECK-LABEL: tt.func public @keep
// CHECK-NOT:  ttg.local_alloc
// CHECK:      %pa = ttg.convert_layout %p : tensor<64x64xf16, #ttg.nvidia_mma<{{.*}}>> -> tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, {{.*}}kWidth = 2}>>

#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#mma1 = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @ab(%a: tensor<64x32xf16, #blocked>, %b: tensor<32x64xf16, #blocked1>, %c: tensor<64x64xf32, #mma>) {
    %da = ttg.convert_layout %a : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
    %db = ttg.convert_layout %b : tensor<32x64xf16, #blocked1> -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
    %d = tt.dot %da, %db, %c, inputPrecision = tf32 : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
    tt.return
  }
  tt.func public @colmajor(%a: tensor<32x32xf32, #blocked2>) {
    %da = ttg.convert_layout %a : tensor<32x32xf32, #blocked2> -> tensor<32x32xf32, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 1}>>
    tt.return
  }
  tt.func public @keep(%p: tensor<64x64xf16, #mma1>) {
    %pa = ttg.convert_layout %p : tensor<64x64xf16, #mma1> -> tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma1, kWidth = 2}>>
    tt.return
  }
}
