// A matmul whose shape no tile divides: 30x7 by 7x13 in the default tiles leaves partial
// tiles (affine.min sizes) in both parallel loops.
func.func @matmul_partial(%a: tensor<30x7xf32>, %b: tensor<7x13xf32>) -> tensor<30x13xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %empty = tensor.empty() : tensor<30x13xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<30x13xf32>) -> tensor<30x13xf32>
  %c = linalg.matmul ins(%a, %b : tensor<30x7xf32>, tensor<7x13xf32>) outs(%init : tensor<30x13xf32>) -> tensor<30x13xf32>
  return %c : tensor<30x13xf32>
}
