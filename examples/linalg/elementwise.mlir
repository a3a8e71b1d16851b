// Seed 001's second dispatch, fused by hand into one linalg.generic: (x + broadcast(v)) * x
// for a 10x15 tensor x and a 15-vector v (the seed's add, broadcast and multiply).
func.func @elementwise(%x: tensor<10x15xf32>, %v: tensor<15xf32>) -> tensor<10x15xf32> {
  %empty = tensor.empty() : tensor<10x15xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %v : tensor<10x15xf32>, tensor<15xf32>) outs(%empty : tensor<10x15xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %sum = arith.addf %a, %b : f32
    %product = arith.mulf %sum, %a : f32
    linalg.yield %product : f32
  } -> tensor<10x15xf32>
  return %r : tensor<10x15xf32>
}
