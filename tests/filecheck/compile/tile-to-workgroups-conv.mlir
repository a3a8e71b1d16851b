// RUN: layoutkit opt --tile-to-workgroups="tile-sizes=0,3,8,4" %s | filecheck %s
// A convolution's input rows are d1 + d4: a tile of 3 output rows (of 8) reads a window of
// 3 + 3 - 1 = 5 input rows from the tile's offset; the last tile (rows 6..7) is partial, so
// the window clamps to what is left of the 10 input rows with affine.min.

// CHECK-LABEL: func.func @conv
// CHECK:       scf.forall (%[[H:.*]], %[[W:.*]], %[[F:.*]]) = (0, 0, 0) to (8, 8, 8) step (3, 8, 4) {
// CHECK:         %[[ROWS:.*]] = affine.min affine_map<(d0) -> (5, ((d0 * -1) + 10))>(%[[H]])
// CHECK-NEXT:    %[[IN:.*]] = memref.subview %input[0, %[[H]], %[[W]], 0] [1, %[[ROWS]], 10, 4] [1, 1, 1, 1]
// CHECK:         memref.subview %filter[0, 0, 0, %[[F]]] [3, 3, 4, 4]
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[IN]], %{{.*}} : memref<1x?x10x4xf32, strided<[400, 40, 4, 1], offset: ?>>
// CHECK:       } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
func.func @conv(%input: memref<1x10x10x4xf32>, %filter: memref<3x3x4x8xf32>, %out: memref<1x8x8x8xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%input, %filter : memref<1x10x10x4xf32>, memref<3x3x4x8xf32>) outs(%out : memref<1x8x8x8xf32>)
  return
}
