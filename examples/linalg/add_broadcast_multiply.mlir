// Seed 001's second dispatch: add of two 10x15 tensors, broadcast of a 15-vector, multiply.
// linalg-fuse-elementwise makes it one linalg.generic: one kernel, no temporary buffer.
func.func @dispatch(%x: tensor<10x15xf32>, %y: tensor<10x15xf32>, %v: tensor<15xf32>) -> tensor<10x15xf32> {
  %e0 = tensor.empty() : tensor<10x15xf32>
  %sum = linalg.add ins(%x, %y : tensor<10x15xf32>, tensor<10x15xf32>) outs(%e0 : tensor<10x15xf32>) -> tensor<10x15xf32>
  %e1 = tensor.empty() : tensor<10x15xf32>
  %vb = linalg.broadcast ins(%v : tensor<15xf32>) outs(%e1 : tensor<10x15xf32>) dimensions = [0]
  %e2 = tensor.empty() : tensor<10x15xf32>
  %r = linalg.mul ins(%sum, %vb : tensor<10x15xf32>, tensor<10x15xf32>) outs(%e2 : tensor<10x15xf32>) -> tensor<10x15xf32>
  return %r : tensor<10x15xf32>
}
