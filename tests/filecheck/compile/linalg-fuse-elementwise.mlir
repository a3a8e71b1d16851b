// RUN: layoutkit opt --linalg-fuse-elementwise %s | filecheck %s
// Seed 001's second dispatch: add, broadcast of a 15-vector, multiply -> one linalg.generic
// reading %x, %y through the identity and %v through (d0, d1) -> (d1); the temporaries go.

// CHECK-LABEL: func.func @dispatch
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<10x15xf32>
// CHECK-NEXT:    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y, %v : tensor<10x15xf32>, tensor<10x15xf32>, tensor<15xf32>) outs(%[[E]] : tensor<10x15xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[S]], %[[V]] : f32
// CHECK-NEXT:      linalg.yield %[[P]] : f32
// CHECK-NEXT:    } -> tensor<10x15xf32>
// CHECK-NEXT:    func.return %r : tensor<10x15xf32>
func.func @dispatch(%x: tensor<10x15xf32>, %y: tensor<10x15xf32>, %v: tensor<15xf32>) -> tensor<10x15xf32> {
  %e0 = tensor.empty() : tensor<10x15xf32>
  %s = linalg.add ins(%x, %y : tensor<10x15xf32>, tensor<10x15xf32>) outs(%e0 : tensor<10x15xf32>) -> tensor<10x15xf32>
  %e1 = tensor.empty() : tensor<10x15xf32>
  %b = linalg.broadcast ins(%v : tensor<15xf32>) outs(%e1 : tensor<10x15xf32>) dimensions = [0]
  %e2 = tensor.empty() : tensor<10x15xf32>
  %r = linalg.mul ins(%s, %b : tensor<10x15xf32>, tensor<10x15xf32>) outs(%e2 : tensor<10x15xf32>) -> tensor<10x15xf32>
  return %r : tensor<10x15xf32>
}

// A transpose producer: its input is read through the permuted map. exp is used twice
// (by the reduction and by the division): fused into both, erased. The row sum stays a
// reduction (never a producer).
// CHECK-LABEL: func.func @transpose_exp_rowsum
// CHECK:         %[[T:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<6x4xf32>)
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %[[T]] : tensor<6x4xf32>, tensor<4xf32>)
// CHECK:           math.exp
// CHECK:           arith.divf
// CHECK-NOT:     linalg.transpose
// CHECK-NOT:     linalg.exp
func.func @transpose_exp_rowsum(%a: tensor<6x4xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x6xf32>
  %t = linalg.transpose ins(%a : tensor<6x4xf32>) outs(%e0 : tensor<4x6xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<4x6xf32>
  %x = linalg.exp ins(%t : tensor<4x6xf32>) outs(%e1 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x6xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %n = arith.addf %in, %acc : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %e3 = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                       affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<4x6xf32>, tensor<4xf32>) outs(%e3 : tensor<4x6xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %d = arith.divf %in, %s : f32
    linalg.yield %d : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// A matmul epilogue (bias + ReLU): the bias broadcast and the add fuse into the ReLU,
// which then writes in place over the matmul's result (outs(%c)): no buffer of its own.
// CHECK-LABEL: func.func @mm_bias_relu
// CHECK:         %[[C:.*]] = linalg.matmul
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<12xf32>) outs(%[[C]] : tensor<30x12xf32>) {
// CHECK-NEXT:    ^bb0(%[[B:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[B]] : f32
// CHECK-NEXT:      arith.maximumf %[[S]], %zero : f32
// CHECK-NOT:     tensor.empty
func.func @mm_bias_relu(%a: tensor<30x20xf32>, %b: tensor<20x12xf32>, %bias: tensor<12xf32>) -> tensor<30x12xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<30x12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<30x12xf32>) -> tensor<30x12xf32>
  %c = linalg.matmul ins(%a, %b : tensor<30x20xf32>, tensor<20x12xf32>) outs(%f : tensor<30x12xf32>) -> tensor<30x12xf32>
  %e1 = tensor.empty() : tensor<30x12xf32>
  %bb = linalg.broadcast ins(%bias : tensor<12xf32>) outs(%e1 : tensor<30x12xf32>) dimensions = [0]
  %e2 = tensor.empty() : tensor<30x12xf32>
  %s = linalg.add ins(%c, %bb : tensor<30x12xf32>, tensor<30x12xf32>) outs(%e2 : tensor<30x12xf32>) -> tensor<30x12xf32>
  %e3 = tensor.empty() : tensor<30x12xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<30x12xf32>) outs(%e3 : tensor<30x12xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<30x12xf32>
  return %r : tensor<30x12xf32>
}
