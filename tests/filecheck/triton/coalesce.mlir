// tritongpu-coalesce, Triton 3.9's rule worked by hand: the pointers of a 64x64 f16 row-major
// copy are contiguous along dim 1 (contiguity 64) and 16-byte aligned (tt.divisibility = 16), so
// order = [1, 0] and perThread = min(16 B / 2 B, 64, 128 bit / 16 bit) = 8 (cap 4096 / 128 = 32);
// BlockedEncodingAttr::get spreads 64 / 8 = 8 lanes on dim 1, the other 4 on dim 0, the 4 warps
// on dim 0. Every tensor operand is converted to it before the access, the load's result back.
// RUN: layoutkit opt %s --convert-triton-to-tritongpu="target=cuda:80" --tritongpu-coalesce | filecheck %s

// CHECK:      %[[P:.*]] = ttg.convert_layout %pp : tensor<64x64x!tt.ptr<f16>, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>> -> tensor<64x64x!tt.ptr<f16>, #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK-NEXT: %[[L:.*]] = tt.load %[[P]] : tensor<64x64x!tt.ptr<f16>, #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK-NEXT: %x = ttg.convert_layout %[[L]] : tensor<64x64xf16, #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<64x64xf16, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>>
// CHECK:      %[[Q:.*]] = ttg.convert_layout %qq : {{.*}} -> tensor<64x64x!tt.ptr<f16>, #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK-NEXT: %[[V:.*]] = ttg.convert_layout %x : {{.*}} -> tensor<64x64xf16, #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK-NEXT: tt.store %[[Q]], %[[V]] : tensor<64x64x!tt.ptr<f16>, #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>

module {
  tt.func public @copy(%src: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %dst: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %e = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %k = arith.constant dense<64> : tensor<64x1xi32>
    %rows = arith.muli %e, %k : tensor<64x1xi32>
    %f = tt.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %b0 = tt.broadcast %rows : tensor<64x1xi32> -> tensor<64x64xi32>
    %b1 = tt.broadcast %f : tensor<1x64xi32> -> tensor<64x64xi32>
    %o = arith.addi %b0, %b1 : tensor<64x64xi32>
    %ps = tt.splat %src : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>>
    %pp = tt.addptr %ps, %o : tensor<64x64x!tt.ptr<f16>>, tensor<64x64xi32>
    %x = tt.load %pp : tensor<64x64x!tt.ptr<f16>>
    %qs = tt.splat %dst : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>>
    %qq = tt.addptr %qs, %o : tensor<64x64x!tt.ptr<f16>>, tensor<64x64xi32>
    tt.store %qq, %x : tensor<64x64x!tt.ptr<f16>>
    tt.return
  }
}
