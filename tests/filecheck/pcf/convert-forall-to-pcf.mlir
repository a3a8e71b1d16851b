// RUN: layoutkit opt --convert-forall-to-pcf %s | filecheck %s
// A workgroup-mapped forall becomes a pcf.loop at workgroup_scope<linearize>, one id per dim
// counted by max(ceil((ub - lb) / step), 0), the induction variable lb + id * step; a
// thread forall inside is left alone (gpu-outline-kernels inlines it).

// CHECK-LABEL: func.func @f(%out: memref<?x?xf32>, %m: index, %n: index)
// CHECK:         %[[EXT:.*]] = arith.subi %m, %{{.*}} : index
// CHECK-NEXT:    %[[UP:.*]] = arith.addi %[[EXT]], %{{.*}} : index
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[DIV:.*]] = arith.divsi %[[UP]], %[[TWO]] : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[ROWS:.*]] = arith.maxsi %[[DIV]], %[[ZERO]] : index
// CHECK:         %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:    pcf.loop scope(#iree_codegen.workgroup_scope<linearize>) count(%[[ROWS]], %[[FOUR]])
// CHECK-NEXT:      execute[%id_i: index, %id_j: index] {
// CHECK:           %[[S:.*]] = arith.muli %id_i, %{{.*}} : index
// CHECK:           %i = arith.addi %[[S]], %{{.*}} : index
// CHECK:           %j = arith.muli %id_j, %{{.*}} : index
// CHECK:           scf.forall (%t) in (4) {
// CHECK:           } {mapping = [#gpu.thread<x>]}
// CHECK-NEXT:      pcf.return
// CHECK-NOT:     scf.forall

// CHECK-LABEL: func.func @host_only
// CHECK:         scf.forall (%k) in (8)
// CHECK-NOT:     pcf.loop
func.func @f(%out: memref<?x?xf32>, %m: index, %n: index) {
  scf.forall (%i, %j) = (1, 0) to (%m, 12) step (2, 3) {
    scf.forall (%t) in (4) {
      %f = arith.constant 1.0 : f32
      memref.store %f, %out[%i, %j] : memref<?x?xf32>
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#iree_codegen.workgroup_mapping<y>, #iree_codegen.workgroup_mapping<x>]}
  return
}

func.func @host_only(%out: memref<8xf32>) {
  scf.forall (%k) in (8) {
    %f = arith.constant 1.0 : f32
    memref.store %f, %out[%k] : memref<8xf32>
  }
  return
}
