// tritongpu-remove-layout-conversions, Triton 3.9's rules worked by hand.
// - @scale: the load of 1024 pointers (>= num-warps * 32 = 128) is expensive, so an anchor in
//   #blocked1 (sizePerThread 4); forward propagation takes #blocked1 through the convert to
//   arith.mulf, whose convert to the store's layout becomes #blocked1 -> #blocked1 and folds; the
//   constant is rebuilt in #blocked1 (convert of a splat constant); the pointer chains
//   (splat, addptr, make_range: cost 0) are rematerialized in #blocked1. No convert is left.
// - @small: a load of 64 pointers (< 128) is cheap: no anchor. Backward rematerialization
//   recomputes the load in the #blocked its user wants (its only use is the convert: cost 0 <=
//   32 * 256 bytes for the convert), and the pointer chain with it. No convert is left.
// - @cond (hoistConvertIntoConditionals): inside an scf.for, the convert of an scf.if result to
//   the store's #blocked1 cannot be rematerialized through the then branch (an expensive load)
//   but can through the else branch (a splat constant): the convert moves into the then branch,
//   the constant is rebuilt in #blocked1, the if returns #blocked1 (its unused old result goes).
// RUN: layoutkit opt %s --tritongpu-remove-layout-conversions | filecheck %s

// CHECK-LABEL: tt.func public @scale
// CHECK-NOT:   ttg.convert_layout
// CHECK:       %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<1024xf32, #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK:       %[[L:.*]] = tt.load %{{.*}} : tensor<1024x!tt.ptr<f32>, #ttg.blocked<{sizePerThread = [4],
// CHECK-NEXT:  %[[M:.*]] = arith.mulf %[[L]], %[[C]] : tensor<1024xf32, #ttg.blocked<{sizePerThread = [4],
// CHECK:       tt.store %{{.*}}, %[[M]] : tensor<1024x!tt.ptr<f32>, #ttg.blocked<{sizePerThread = [4],
// CHECK-LABEL: tt.func public @small
// CHECK-NOT:   ttg.convert_layout
// CHECK:       %[[L2:.*]] = tt.load %{{.*}} : tensor<64x!tt.ptr<f32>, #ttg.blocked<{sizePerThread = [1],
// CHECK-NEXT:  %[[E:.*]] = math.exp %[[L2]] : tensor<64xf32, #ttg.blocked<{sizePerThread = [1],
// CHECK:       tt.store %{{.*}}, %[[E]] : tensor<64x!tt.ptr<f32>, #ttg.blocked<{sizePerThread = [1],
// CHECK-LABEL: tt.func public @cond
// CHECK:       %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<512xf32, #ttg.blocked<{sizePerThread = [4],
// CHECK:       scf.for
// CHECK:       %[[V:.*]] = scf.if %{{.*}} -> (tensor<512xf32, #ttg.blocked<{sizePerThread = [4],
// CHECK-NEXT:    %[[L:.*]] = tt.load %{{.*}} : tensor<512x!tt.ptr<f32>, #ttg.blocked<{sizePerThread = [1],
// CHECK-NEXT:    %[[C:.*]] = ttg.convert_layout %[[L]] : tensor<512xf32, #ttg.blocked<{sizePerThread = [1], {{.*}} -> tensor<512xf32, #ttg.blocked<{sizePerThread = [4],
// CHECK-NEXT:    scf.yield %[[C]]
// CHECK-NEXT:  } else {
// CHECK-NEXT:    scf.yield %[[Z]]
// CHECK:       tt.store %{{.*}}, %[[V]] : tensor<512x!tt.ptr<f32>, #ttg.blocked<{sizePerThread = [4],

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @scale(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>) {
    %cst = arith.constant dense<2.000000e+00> : tensor<1024xf32, #blocked>
    %0 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %1 = tt.splat %x : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %2 = tt.addptr %1, %0 : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %3 = ttg.convert_layout %2 : tensor<1024x!tt.ptr<f32>, #blocked> -> tensor<1024x!tt.ptr<f32>, #blocked1>
    %4 = tt.load %3 : tensor<1024x!tt.ptr<f32>, #blocked1>
    %5 = ttg.convert_layout %4 : tensor<1024xf32, #blocked1> -> tensor<1024xf32, #blocked>
    %6 = arith.mulf %5, %cst : tensor<1024xf32, #blocked>
    %7 = tt.splat %y : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %8 = tt.addptr %7, %0 : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %9 = ttg.convert_layout %8 : tensor<1024x!tt.ptr<f32>, #blocked> -> tensor<1024x!tt.ptr<f32>, #blocked1>
    %10 = ttg.convert_layout %6 : tensor<1024xf32, #blocked> -> tensor<1024xf32, #blocked1>
    tt.store %9, %10 : tensor<1024x!tt.ptr<f32>, #blocked1>
    tt.return
  }
  tt.func public @small(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>) {
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #blocked>
    %1 = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #blocked>
    %2 = tt.addptr %1, %0 : tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xi32, #blocked>
    %3 = ttg.convert_layout %2 : tensor<64x!tt.ptr<f32>, #blocked> -> tensor<64x!tt.ptr<f32>, #blocked1>
    %4 = tt.load %3 : tensor<64x!tt.ptr<f32>, #blocked1>
    %5 = ttg.convert_layout %4 : tensor<64xf32, #blocked1> -> tensor<64xf32, #blocked>
    %6 = math.exp %5 : tensor<64xf32, #blocked>
    %7 = tt.splat %y : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #blocked>
    %8 = tt.addptr %7, %0 : tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xi32, #blocked>
    tt.store %8, %6 : tensor<64x!tt.ptr<f32>, #blocked>
    tt.return
  }
  tt.func public @cond(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %n: i32) {
    %zero = arith.constant dense<0.000000e+00> : tensor<512xf32, #blocked>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %pp = tt.addptr %ps, %r : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %r1 = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked1>
    %qs = tt.splat %q : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked1>
    %qq = tt.addptr %qs, %r1 : tensor<512x!tt.ptr<f32>, #blocked1>, tensor<512xi32, #blocked1>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %c = arith.cmpi slt, %i, %c2 : i32
      %v = scf.if %c -> (tensor<512xf32, #blocked>) {
        %l = tt.load %pp : tensor<512x!tt.ptr<f32>, #blocked>
        scf.yield %l : tensor<512xf32, #blocked>
      } else {
        scf.yield %zero : tensor<512xf32, #blocked>
      }
      %cv = ttg.convert_layout %v : tensor<512xf32, #blocked> -> tensor<512xf32, #blocked1>
      tt.store %qq, %cv : tensor<512x!tt.ptr<f32>, #blocked1>
      scf.yield
    }
    tt.return
  }
}
