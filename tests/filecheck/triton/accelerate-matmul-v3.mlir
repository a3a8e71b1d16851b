// tritongpu-accelerate-matmul on cuda:90 (mma v3), Triton 3.9's rules worked by hand, 8 warps.
// @loaded: 128x32 * 32x128 f16, A and B block arguments (taken as loaded): instrShape [16, n, 256/16]
// with n the largest of 256, 248, ... dividing 128 and <= 128 / max(8 / (128/16), 1) = 128 -> [16, 128, 16];
// warps from [4, 1]: M = 128 > 16 * 4 -> [8, 1]. A 128x32xf16 in order [1, 0]: 64-byte rows ->
// nvmma_shared swizzle 64; B 32x128: 256-byte rows -> swizzle 128. Each local_alloc right after its
// value; for block arguments that is the block's start, so B's (made second) comes first.
// @computed: A = a + a is not a load: it stays in registers as dot_op kWidth 32/16 = 2. n <= 64 /
// (8 / (64/16)) = 32 -> instrShape [16, 32, 16]; warps [4, 1] cover M = 64 = 16 * 4, so N doubles: [4, 2].
// @small: M = 32 is not a multiple of 64 -> mma v2 with the ordinary converts.
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
}
