// canonicalize folds constants and identities (x * 1 = x) and erases what is left unused;
// it does not merge equal ops (that is cse) and keeps ops with effects.
// RUN: layoutkit opt %s --canonicalize | filecheck %s

module {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xindex>) kernel {
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c1 = arith.constant 1 : index
      %six = arith.muli %c2, %c3 : index
      %tid = gpu.thread_id x
      %same = arith.muli %tid, %c1 : index
      %a = arith.addi %tid, %six : index
      %b = arith.addi %tid, %six : index
      %unused = arith.subi %a, %b : index
      %sum = arith.addi %a, %b : index
      gpu.barrier
      memref.store %sum, %out[%same] : memref<?xindex>
      gpu.return
    }
  }
}

// CHECK-LABEL: gpu.func @k(%out: memref<?xindex>) kernel {
// CHECK-NEXT:    %six = arith.constant 6 : index
// CHECK-NEXT:    %tid = gpu.thread_id x
// CHECK-NEXT:    %a = arith.addi %tid, %six : index
// CHECK-NEXT:    %b = arith.addi %tid, %six : index
// CHECK-NEXT:    %sum = arith.addi %a, %b : index
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    memref.store %sum, %out[%tid] : memref<?xindex>
// CHECK-NEXT:    gpu.return
