// The transpose of a 20x36 f32 tensor.
func.func @transpose(%x: tensor<20x36xf32>) -> tensor<36x20xf32> {
  %empty = tensor.empty() : tensor<36x20xf32>
  %t = linalg.transpose ins(%x : tensor<20x36xf32>) outs(%empty : tensor<36x20xf32>) permutation = [1, 0]
  return %t : tensor<36x20xf32>
}
