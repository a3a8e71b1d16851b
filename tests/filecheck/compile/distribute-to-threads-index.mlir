// RUN: layoutkit opt --tile-to-workgroups="tile-sizes=8,8" --distribute-to-threads %s | filecheck %s
// linalg.index d is the tile's offset in loop d plus the thread's tile-local loop variable.

// CHECK-LABEL: func.func @tril
// CHECK:       scf.forall (%[[TI:.*]], %[[TJ:.*]]) = (0, 0) to (16, 16) step (8, 8) {
// CHECK:         scf.forall (%{{.*}}, %{{.*}}) in (8, 8) {
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to
// CHECK:             scf.for %[[J:.*]] = %{{.*}} to
// CHECK:               memref.load %x[
// CHECK-NEXT:          %[[ROW:.*]] = arith.addi %[[TI]], %[[I]] : index
// CHECK-NEXT:          %[[COL:.*]] = arith.addi %[[TJ]], %[[J]] : index
// CHECK-NEXT:          %[[BELOW:.*]] = arith.cmpi ule, %[[COL]], %[[ROW]] : index
// CHECK-NEXT:          arith.select %[[BELOW]]
// CHECK-NOT:   linalg.index
func.func @tril(%x: memref<16x16xf32>, %y: memref<16x16xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<16x16xf32>) outs(%y : memref<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %below = arith.cmpi ule, %j, %i : index
    %v = arith.select %below, %in, %zero : f32
    linalg.yield %v : f32
  }
  return
}
