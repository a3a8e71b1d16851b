// RUN: layoutkit opt --tile-to-workgroups="tile-sizes=8,8,4" %s | filecheck %s
// The third tile size steps the reduction loop (K = 22 in steps of 4, the last step 2:
// affine.min) inside the block tile; A and B are sliced along K, C is not.

// CHECK-LABEL: func.func @matmul
// CHECK:       scf.forall (%[[I:.*]], %[[J:.*]]) = (0, 0) to (30, 16) step (8, 8) {
// CHECK-NEXT:    %[[M:.*]] = affine.min affine_map<(d0) -> (8, ((d0 * -1) + 30))>(%[[I]])
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C22:.*]] = arith.constant 22 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         scf.for %[[K:.*]] = %[[C0]] to %[[C22]] step %[[C4]] {
// CHECK-NEXT:      %[[KS:.*]] = affine.min affine_map<(d0) -> (4, ((d0 * -1) + 22))>(%[[K]])
// CHECK-NEXT:      %[[SA:.*]] = memref.subview %a[%[[I]], %[[K]]] [%[[M]], %[[KS]]] [1, 1]
// CHECK-NEXT:      %[[SB:.*]] = memref.subview %b[%[[K]], %[[J]]] [%[[KS]], 8] [1, 1]
// CHECK-NEXT:      %[[SC:.*]] = memref.subview %c[%[[I]], %[[J]]] [%[[M]], 8] [1, 1]
// CHECK-NEXT:      linalg.matmul ins(%[[SA]], %[[SB]] : {{.*}}) outs(%[[SC]] : {{.*}})
// CHECK-NEXT:    }
// CHECK-NEXT:  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
func.func @matmul(%a: memref<30x22xf32>, %b: memref<22x16xf32>, %c: memref<30x16xf32>) {
  linalg.matmul ins(%a, %b : memref<30x22xf32>, memref<22x16xf32>) outs(%c : memref<30x16xf32>)
  return
}
