// Seed 001's second dispatch: add of two 10x15 tensors, broadcast of a 15-vector, multiply,
// as current MLIR writes them (the named linalg.add / linalg.mul are gone upstream).
// linalg-fuse-elementwise makes it one linalg.generic: one kernel, no temporary buffer.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @add_broadcast_multiply(%x: tensor<10x15xf32>, %y: tensor<10x15xf32>, %v: tensor<15xf32>) -> tensor<10x15xf32> {
  %e0 = tensor.empty() : tensor<10x15xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<10x15xf32>, tensor<10x15xf32>) outs(%e0 : tensor<10x15xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<10x15xf32>
  %e1 = tensor.empty() : tensor<10x15xf32>
  %vb = linalg.broadcast ins(%v : tensor<15xf32>) outs(%e1 : tensor<10x15xf32>) dimensions = [0]
  %e2 = tensor.empty() : tensor<10x15xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum, %vb : tensor<10x15xf32>, tensor<10x15xf32>) outs(%e2 : tensor<10x15xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<10x15xf32>
  return %r : tensor<10x15xf32>
}
