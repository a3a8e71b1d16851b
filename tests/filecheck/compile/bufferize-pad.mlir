// RUN: layoutkit opt --bufferize %s | filecheck %s
// tensor.pad becomes an explicit buffer of the padded shape: filled with the padding value,
// then the source copied into its interior, a subview at the low padding (offset
// 1 * 40 + 1 * 4 = 44 in the 1x10x10x4 buffer, strides [400, 40, 4, 1]).

// CHECK-LABEL: func.func @pad
// CHECK:         %[[P:.*]] = memref.alloc() : memref<1x10x10x4xf32>
// CHECK-NEXT:    linalg.fill ins(%zero : f32) outs(%[[P]] : memref<1x10x10x4xf32>)
// CHECK-NEXT:    %[[V:.*]] = memref.subview %[[P]][0, 1, 1, 0] [1, 8, 8, 4] [1, 1, 1, 1] : memref<1x10x10x4xf32> to memref<1x8x8x4xf32, strided<[400, 40, 4, 1], offset: 44>>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%x : memref<1x8x8x4xf32>) outs(%[[V]] : memref<1x8x8x4xf32, strided<[400, 40, 4, 1], offset: 44>>)
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[P]], %w : memref<1x10x10x4xf32>, memref<3x3x4x2xf32>)
// CHECK-NOT:   tensor.
func.func @pad(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x2xf32>) -> tensor<1x8x8x2xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
  %e = tensor.empty() : tensor<1x8x8x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x2xf32>) -> tensor<1x8x8x2xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x10x10x4xf32>, tensor<3x3x4x2xf32>) outs(%f : tensor<1x8x8x2xf32>) -> tensor<1x8x8x2xf32>
  return %c : tensor<1x8x8x2xf32>
}
