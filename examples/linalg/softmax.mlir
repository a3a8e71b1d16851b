// Row softmax of a 6x40 f32 tensor as linalg.generic ops: the row maximum, the row sum of
// exp(x - max), then exp(x - max) / sum. No temporaries: the row maximum and row sum are
// returned beside the softmax (results 1 and 2).
func.func @softmax(%x: tensor<6x40xf32>) -> (tensor<6x40xf32>, tensor<6xf32>, tensor<6xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<6xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<6xf32>) -> tensor<6xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x40xf32>) outs(%m0 : tensor<6xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<6xf32>
  %e1 = tensor.empty() : tensor<6xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<6xf32>) -> tensor<6xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %max : tensor<6x40xf32>, tensor<6xf32>) outs(%s0 : tensor<6xf32>) {
  ^bb0(%in: f32, %mx: f32, %acc: f32):
    %d = arith.subf %in, %mx : f32
    %ex = math.exp %d : f32
    %s = arith.addf %ex, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  %e2 = tensor.empty() : tensor<6x40xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %max, %sum : tensor<6x40xf32>, tensor<6xf32>, tensor<6xf32>) outs(%e2 : tensor<6x40xf32>) {
  ^bb0(%in: f32, %mx: f32, %sm: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %ex = math.exp %d : f32
    %q = arith.divf %ex, %sm : f32
    linalg.yield %q : f32
  } -> tensor<6x40xf32>
  return %y, %max, %sum : tensor<6x40xf32>, tensor<6xf32>, tensor<6xf32>
}
