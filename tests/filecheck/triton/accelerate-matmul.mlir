// tritongpu-accelerate-matmul (NVIDIA, mma v2), Triton 3.9's rule worked by hand: a 64x32 * 32x64
// f16 dot alone, 4 warps: 16x8 tiles [4, 8] -> N takes 2 warps (tiles [4, 4]) -> M takes 2:
// warpsPerCTA = [2, 2]; kWidth = 32 / 16 = 2. The accumulator is converted first, then A and B,
// and the result back to its blocked layout. An IEEE f32 dot stays on FMA, unchanged.
// RUN: layoutkit opt %s --convert-triton-to-tritongpu="target=cuda:80" --tritongpu-accelerate-matmul | filecheck %s

// CHECK-LABEL: tt.func public @mm
// CHECK:      %[[C:.*]] = ttg.convert_layout %{{.*}} : tensor<64x64xf32, #ttg.blocked<{{.*}}>> -> tensor<64x64xf32, #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
// CHECK-NEXT: %[[A:.*]] = ttg.convert_layout %{{.*}} -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>>
// CHECK-NEXT: %[[B:.*]] = ttg.convert_layout %{{.*}} -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>>
// CHECK-NEXT: %[[D:.*]] = tt.dot %[[A]], %[[B]], %[[C]], inputPrecision = tf32 : {{.*}} -> tensor<64x64xf32, #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
// CHECK-NEXT: %d = ttg.convert_layout %[[D]] : tensor<64x64xf32, #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>> -> tensor<64x64xf32, #ttg.blocked<{sizePerThread = [4, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK-LABEL: tt.func public @fma
// CHECK-NOT:  nvidia_mma
// CHECK:      %d = tt.dot {{.*}} -> tensor<16x16xf32, #ttg.blocked<{{.*}}>>

module {
  tt.func public @mm(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
    %c = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %d = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    tt.return
  }
  tt.func public @fma(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) {
    %c = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    %d = tt.dot %a, %b, %c, inputPrecision = ieee : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
    tt.return
  }
}
