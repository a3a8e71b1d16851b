// Column sums of a 20x12 f32 tensor: a reduction over the rows (the outer loop).
func.func @column_sum(%x: tensor<20x12xf32>) -> tensor<12xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %empty = tensor.empty() : tensor<12xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<12xf32>) -> tensor<12xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<20x12xf32>) outs(%init : tensor<12xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %t = arith.addf %in, %acc : f32
    linalg.yield %t : f32
  } -> tensor<12xf32>
  return %s : tensor<12xf32>
}
