// tritongpu-accelerate-matmul on cuda:90 (mma v3), Triton 3.9's rules worked by hand, 8 warps.
// @loaded: 128x32 * 32x128 f16, A and B block arguments (taken as loaded): instrShape [16, n, 256/16]
// with n the largest of 256, 248, ... dividing 128 and <= 128 / max(8 / (128/16), 1) = 128 -> [16, 128, 16];
// warps from [4, 1]: M = 128 > 16 * 4 -> [8, 1]. A 128x32xf16 in order [1, 0]: 64-byte rows ->
// nvmma_shared swizzle 64; B 32x128: 256-byte rows -> swizzle 128. Each local_alloc right after its
// value; for block arguments that is the block's start, so B's (made second) comes first.
// @computed: A = a + a is not a load: it stays in registers as dot_op kWidth 32/16 = 2. n <= 64 /
// (8 / (64/16)) = 32 -> instrShape [16, 32, 16]; warps [4, 1] cover M = 64 = 16 * 4, so N doubles: [4, 2].
// @small: M = 32 is not a multiple of 64 -> mma v2 with the ordinary converts.
// @into_loop: the first dot's result enters an scf.for whose body has a dot: MLIR's forward slice
// takes in every op nested in the loop, so that dot is "chained" -> all 8 warps on M, [8, 1]; the
// dot in the loop has none after it -> [4, 2].
// RUN: layoutkit opt %s --convert-triton-to-tritongpu="target=cuda:90 num-warps=8" --tritongpu-accelerate-matmul | filecheck %s

// CHECK-LABEL: tt.func public @loaded
// CHECK-NEXT: %[[SB:.*]] = ttg.local_alloc %b : {{.*}} -> !ttg.memdesc<32x128xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>, #ttg.shared_memory>
// CHECK-NEXT: %[[SA:.*]] = ttg.local_alloc %a : {{.*}} -> !ttg.memdesc<128x32xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>, #ttg.shared_memory>
// CHECK:      %[[C:.*]] = ttg.convert_layout %{{.*}} -> tensor<128x128xf32, #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>>
// CHECK-NEXT: %[[D:.*]] = ttng.warp_group_dot %[[SA]], %[[SB]], %[[C]] {inputPrecision = 0 : i32} : {{.*}} -> tensor<128x128xf32, #ttg.nvidia_mma<{versionMajor = 3
// CHECK-NEXT: %d = ttg.convert_layout %[[D]] : {{.*}} -> tensor<128x128xf32, #ttg.blocked<{{.*}}>>
// CHECK-NOT:  ttg.convert_layout
// CHECK-LABEL: tt.func public @computed
// CHECK:      %[[SB:.*]] = ttg.local_alloc %b
// CHECK:      %[[C:.*]] = ttg.convert_layout %{{.*}} -> tensor<64x64xf32, #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 32, 16]}>>
// CHECK-NEXT: %[[A:.*]] = ttg.convert_layout %{{.*}} -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{{.*}}>, kWidth = 2}>>
// CHECK-NEXT: ttng.warp_group_dot %[[A]], %[[SB]], %[[C]] {inputPrecision = 0 : i32} : tensor<64x32xf16, #ttg.dot_op
// CHECK-LABEL: tt.func public @small
// CHECK-NOT:  warp_group_dot
// CHECK:      tt.dot {{.*}} -> tensor<32x64xf32, #ttg.nvidia_mma<{versionMajor = 2,
// CHECK-LABEL: tt.func public @into_loop
// CHECK:      ttng.warp_group_dot {{.*}} -> tensor<64x64xf32, #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 32, 16]}>>
// CHECK:      scf.for
// CHECK:      ttng.warp_group_dot {{.*}} -> tensor<64x64xf32, #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 32, 16]}>>

module {
  tt.func public @loaded(%a: tensor<128x32xf16>, %b: tensor<32x128xf16>) {
    %c = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %d = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
    tt.return
  }
  tt.func public @computed(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
    %c = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %a2 = arith.addf %a, %a : tensor<64x32xf16>
    %d = tt.dot %a2, %b, %c, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    tt.return
  }
  tt.func public @small(%a: tensor<32x32xf16>, %b: tensor<32x64xf16>) {
    %c = arith.constant dense<0.000000e+00> : tensor<32x64xf32>
    %d = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<32x32xf16> * tensor<32x64xf16> -> tensor<32x64xf32>
    tt.return
  }
  tt.func public @into_loop(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %n: i32) {
    %c = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %d = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %d) -> (tensor<64x64xf32>) : i32 {
      %e = tt.dot %a, %b, %acc, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
      scf.yield %e : tensor<64x64xf32>
    }
    tt.return
  }
}
