// tritongpu-accelerate-matmul on hip:gfx942 (Triton's AMD BlockedToMFMA, mfma version 3), worked by
// hand: a 64x32 * 32x64 f16 dot alone, 4 warps: min(M, N) = 64 >= 32 -> mfma 32x32x8 (f16, kBase 4;
// K = 32 is a multiple of 8). Warps: [1, 1]; 64/64/1 = 1 < 64/32/1 = 2 -> N: [1, 2];
// 64/64/1 = 1 >= 64/32/2 = 1 and M has room (64/32 = 2 > 1) -> M: [2, 2]. kWidth = kBase = 4.
// An f16 dot with M = 8 (< 16) has no MFMA and stays blocked.
// RUN: layoutkit opt %s --convert-triton-to-tritongpu="target=hip:gfx942 threads-per-warp=64" --tritongpu-accelerate-matmul | filecheck %s

// CHECK-LABEL: tt.func public @mm
// CHECK:      %[[C:.*]] = ttg.convert_layout %{{.*}} -> tensor<64x64xf32, #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>>
// CHECK-NEXT: %[[A:.*]] = ttg.convert_layout %{{.*}} -> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>, kWidth = 4}>>
// CHECK-NEXT: %[[B:.*]] = ttg.convert_layout %{{.*}} -> tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>, kWidth = 4}>>
// CHECK-NEXT: %[[D:.*]] = tt.dot %[[A]], %[[B]], %[[C]] : {{.*}} -> tensor<64x64xf32, #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>>
// CHECK-NEXT: %d = ttg.convert_layout %[[D]] : tensor<64x64xf32, #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>> -> tensor<64x64xf32, #ttg.blocked<{{.*}}>>
// CHECK-LABEL: tt.func public @small
// CHECK-NOT:  amd_mfma
// CHECK:      %d = tt.dot {{.*}} -> tensor<8x64xf32, #ttg.blocked<{{.*}}>>

module {
  tt.func public @mm(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) {
    %c = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %d = tt.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    tt.return
  }
  tt.func public @small(%a: tensor<8x32xf16>, %b: tensor<32x64xf16>) {
    %c = arith.constant dense<0.000000e+00> : tensor<8x64xf32>
    %d = tt.dot %a, %b, %c : tensor<8x32xf16> * tensor<32x64xf16> -> tensor<8x64xf32>
    tt.return
  }
}
