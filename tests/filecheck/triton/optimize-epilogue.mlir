// tritonamdgpu-optimize-epilogue, Triton 3.9's BypassEpilogueSMEM worked by hand:
// - @store_through_truncf: the f32 accumulator in #mma is converted to #blocked, truncated and
//   stored with a mask; the truncf takes #mma in place, the pointer and the mask get a convert
//   to #mma before the store, and the value's convert (now unused) goes.
// - @two_uses: the converted value is also added: the convert has two uses, nothing changes.
// RUN: layoutkit opt %s --tritonamdgpu-optimize-epilogue | filecheck %s

#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  // CHECK-LABEL: tt.func @store_through_truncf
  tt.func @store_through_truncf(%acc: tensor<64x64xf32, #mma>, %ptr: tensor<64x64x!tt.ptr<f16>, #blocked>, %mask: tensor<64x64xi1, #blocked>) {
    // CHECK-NOT: -> tensor<64x64xf32, #ttg.blocked
    // CHECK: %[[H:.*]] = arith.truncf %acc : tensor<64x64xf32, #ttg.amd_mfma<{{.*}}>> to tensor<64x64xf16, #ttg.amd_mfma<{{.*}}>>
    // CHECK: %[[P:.*]] = ttg.convert_layout %ptr : tensor<64x64x!tt.ptr<f16>, #ttg.blocked<{{.*}}>> -> tensor<64x64x!tt.ptr<f16>, #ttg.amd_mfma<{{.*}}>>
    // CHECK: %[[M:.*]] = ttg.convert_layout %mask : tensor<64x64xi1, #ttg.blocked<{{.*}}>> -> tensor<64x64xi1, #ttg.amd_mfma<{{.*}}>>
    // CHECK: tt.store %[[P]], %[[H]], %[[M]] : tensor<64x64x!tt.ptr<f16>, #ttg.amd_mfma<{{.*}}>>
    %c = ttg.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    %h = arith.truncf %c : tensor<64x64xf32, #blocked> to tensor<64x64xf16, #blocked>
    tt.store %ptr, %h, %mask : tensor<64x64x!tt.ptr<f16>, #blocked>
    tt.return
  }
  // CHECK-LABEL: tt.func @two_uses
  tt.func @two_uses(%acc: tensor<64x64xf32, #mma>, %ptr: tensor<64x64x!tt.ptr<f32>, #blocked>) {
    // CHECK: %c = ttg.convert_layout %acc : tensor<64x64xf32, #ttg.amd_mfma<{{.*}}>> -> tensor<64x64xf32, #ttg.blocked<{{.*}}>>
    // CHECK: tt.store %ptr, %c : tensor<64x64x!tt.ptr<f32>, #ttg.blocked<{{.*}}>>
    %c = ttg.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    %d = arith.addf %c, %c : tensor<64x64xf32, #blocked>
    tt.store %ptr, %c : tensor<64x64x!tt.ptr<f32>, #blocked>
    tt.store %ptr, %d : tensor<64x64x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
