// A batch of 3 matmuls, 12x10 by 10x20 f32.
func.func @batch_matmul(%a: tensor<3x12x10xf32>, %b: tensor<3x10x20xf32>) -> tensor<3x12x20xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %empty = tensor.empty() : tensor<3x12x20xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<3x12x20xf32>) -> tensor<3x12x20xf32>
  %c = linalg.batch_matmul ins(%a, %b : tensor<3x12x10xf32>, tensor<3x10x20xf32>) outs(%init : tensor<3x12x20xf32>) -> tensor<3x12x20xf32>
  return %c : tensor<3x12x20xf32>
}
