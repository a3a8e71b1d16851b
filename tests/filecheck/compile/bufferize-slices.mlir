// RUN: layoutkit opt --bufferize %s | filecheck %s
// extract_slice is a subview of the input (strides compose: [24 * 1, 1 * 2], offset
// 2 * 24 + 4 = 52); the tensor.empty that insert_slice puts into the result is a subview of
// the result's buffer, written in place (offset 1 * 12 + 2 = 14); insert_slice disappears.

// CHECK-LABEL: func.func @slices
// CHECK:         %[[W:.*]] = memref.subview %x[2, 4] [10, 8] [1, 2] : memref<16x24xf32> to memref<10x8xf32, strided<[24, 2], offset: 52>>
// CHECK:         %[[E:.*]] = memref.alloc() : memref<12x12xf32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : memref<12x12xf32>)
// CHECK-NEXT:    %[[IN:.*]] = memref.subview %[[E]][1, 2] [10, 8] [1, 1] : memref<12x12xf32> to memref<10x8xf32, strided<[12, 1], offset: 14>>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[W]], %y : {{.*}}) outs(%[[IN]] : memref<10x8xf32, strided<[12, 1], offset: 14>>)
// CHECK:         func.return %[[E]] : memref<12x12xf32>
// CHECK-NOT:   tensor.
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
