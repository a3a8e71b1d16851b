// The lower triangle of a 20x20 f32 matrix (zero above the diagonal): linalg.index gives
// each element its row and column.
func.func @tril(%x: tensor<20x20xf32>) -> tensor<20x20xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %empty = tensor.empty() : tensor<20x20xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<20x20xf32>) outs(%empty : tensor<20x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %below = arith.cmpi ule, %j, %i : index
    %v = arith.select %below, %in, %zero : f32
    linalg.yield %v : f32
  } -> tensor<20x20xf32>
  return %t : tensor<20x20xf32>
}
