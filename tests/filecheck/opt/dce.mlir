// dce erases ops whose results are unused and that have no effects (also inside loops);
// stores, barriers and shuffles' users stay.
// RUN: layoutkit opt %s --dce | filecheck %s

module {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %one = arith.constant 1.0 : f32
      %unused_c = arith.constant 7 : index
      %tid = gpu.thread_id x
      %unused_twice = arith.muli %tid, %tid : index
      scf.for %i = %c0 to %c8 step %c1 {
        %unused_in_loop = arith.addi %i, %tid : index
        memref.store %one, %out[%i] : memref<?xf32>
      }
      gpu.barrier
      gpu.return
    }
  }
}

// CHECK-LABEL: gpu.func @k(%out: memref<?xf32>) kernel {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %tid = gpu.thread_id x
// CHECK-NEXT:    scf.for %i = %c0 to %c8 step %c1 {
// CHECK-NEXT:      memref.store %one, %out[%i] : memref<?xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    gpu.return
