// relu(a @ b + bias): a 32x24 by 24x16 matmul, then an epilogue that adds a 16-vector bias
// to every row and clamps at zero, in place in the result.
func.func @matmul_bias_relu(%a: tensor<32x24xf32>, %b: tensor<24x16xf32>, %bias: tensor<16xf32>) -> tensor<32x16xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %empty = tensor.empty() : tensor<32x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<32x16xf32>) -> tensor<32x16xf32>
  %c = linalg.matmul ins(%a, %b : tensor<32x24xf32>, tensor<24x16xf32>) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<16xf32>) outs(%c : tensor<32x16xf32>) {
  ^bb0(%bv: f32, %acc: f32):
    %sum = arith.addf %acc, %bv : f32
    %relu = arith.maximumf %sum, %zero : f32
    linalg.yield %relu : f32
  } -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}
