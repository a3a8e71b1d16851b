// RUN: layoutkit opt --pcf-lower-structural="workgroup-size=64 subgroup-size=16 max-workgroups=8" %s | filecheck %s
// A workgroup loop with <linearize> and two ids on a grid of 8 workgroups: iterations from the
// workgroup id by 8 below %m * %n, both ids from 0 (IREE 3.13 starts the outer id at 1). A
// synced loop needs no barrier (the kernel's end is the fence); a synced subgroup generic
// gets a gpu.barrier after its body; a lane generic nested in it reuses its thread.

// CHECK-LABEL: func.func @tiles(%out: memref<?x?xf32>, %m: index, %n: index)
// CHECK:         scf.forall (%[[WG:.*]]) in (8) {
// CHECK-NEXT:      %[[TOTAL:.*]] = arith.muli %m, %n : index
// CHECK-NEXT:      %[[G:.*]] = arith.constant 8 : index
// CHECK-NEXT:      scf.for %[[LIN:.*]] = %[[WG]] to %[[TOTAL]] step %[[G]] {
// CHECK-NEXT:        %j = arith.remui %[[LIN]], %n : index
// CHECK-NEXT:        %i = arith.divui %[[LIN]], %n : index
// CHECK:             scf.forall (%[[T:.*]]) in (64) {
// CHECK-NEXT:          %[[SGS:.*]] = arith.constant 16 : index
// CHECK-NEXT:          %sg = arith.divui %[[T]], %[[SGS]] : index
// CHECK-NEXT:          %nsg = arith.constant 4 : index
// CHECK:               %[[SGS2:.*]] = arith.constant 16 : index
// CHECK-NEXT:          %lane = arith.remui %[[T]], %[[SGS2]] : index
// CHECK-NEXT:          %nlane = arith.constant 16 : index
// CHECK:               memref.store
// CHECK-NOT:           scf.forall
// CHECK:             } {mapping = [#gpu.thread<x>]}
// CHECK-NEXT:        gpu.barrier
// CHECK-NEXT:      }
// CHECK-NEXT:    } {mapping = [#gpu.block<x>]}
// CHECK-NOT:     pcf.
// CHECK:         func.return

// CHECK-LABEL: func.func @sequential(%out: memref<4x3xf32>)
// CHECK:         %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[O:.*]] = arith.constant 1 : index
// CHECK-NEXT:    scf.for %a = %[[Z]] to %c4 step %[[O]] {
// CHECK-NEXT:      scf.for %b = %[[Z]] to %c3 step %[[O]] {
// CHECK-NEXT:        %f = arith.constant
// CHECK-NEXT:        memref.store %f, %out[%a, %b]
func.func @tiles(%out: memref<?x?xf32>, %m: index, %n: index) {
  pcf.loop sync true scope(#iree_codegen.workgroup_scope<linearize>) count(%m, %n) execute[%i: index, %j: index] {
    pcf.generic sync true scope(#iree_gpu.subgroup_scope) execute[%sg: index, %nsg: index] {
      pcf.generic scope(#iree_gpu.lane_scope) execute[%lane: index, %nlane: index] {
        %f = arith.constant 1.0 : f32
        memref.store %f, %out[%sg, %lane] : memref<?x?xf32>
        pcf.return
      }
      pcf.return
    }
    pcf.return
  }
  return
}

func.func @sequential(%out: memref<4x3xf32>) {
  %c4 = arith.constant 4 : index
  %c3 = arith.constant 3 : index
  pcf.loop scope(#pcf.sequential) count(%c4, %c3) execute[%a: index, %b: index] {
    %f = arith.constant 1.0 : f32
    memref.store %f, %out[%a, %b] : memref<4x3xf32>
    pcf.return
  }
  return
}
