// tensor.extract_slice and tensor.insert_slice: a strided 10x8 window of a 16x24 input
// (rows 2.., every second column from 4) plus a 10x8 tensor, written into the middle of a
// zero 12x12 result. Both slices become memref.subviews: no copies, no temporaries.
func.func @slices(%x: tensor<16x24xf32>, %y: tensor<10x8xf32>) -> tensor<12x12xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %window = tensor.extract_slice %x[2, 4] [10, 8] [1, 2] : tensor<16x24xf32> to tensor<10x8xf32>
  %e = tensor.empty() : tensor<12x12xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<12x12xf32>) -> tensor<12x12xf32>
  %inner = tensor.empty() : tensor<10x8xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%window, %y : tensor<10x8xf32>, tensor<10x8xf32>) outs(%inner : tensor<10x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<10x8xf32>
  %r = tensor.insert_slice %sum into %z[1, 2] [10, 8] [1, 1] : tensor<10x8xf32> into tensor<12x12xf32>
  return %r : tensor<12x12xf32>
}
