// cse merges pure ops computing the same value from the same operands, across nested
// regions; loads from memory and ops in sibling branches stay apart.
// RUN: layoutkit opt %s --cse | filecheck %s

module {
  gpu.module @kernels {
    gpu.func @k(%in: memref<?xf32>, %out: memref<?xf32>, %n: index) kernel {
      %tid = gpu.thread_id x
      %c4 = arith.constant 4 : index
      %c4_again = arith.constant 4 : index
      %i = arith.muli %tid, %c4 : index
      %j = arith.muli %tid, %c4_again : index
      %x = memref.load %in[%i] : memref<?xf32>
      memref.store %x, %out[%j] : memref<?xf32>
      %y = memref.load %in[%j] : memref<?xf32>
      %inside = arith.cmpi ult, %i, %n : index
      scf.if %inside {
        %k = arith.muli %tid, %c4 : index
        %s = arith.addf %x, %y : f32
        memref.store %s, %out[%k] : memref<?xf32>
      }
      gpu.return
    }
  }
}

// CHECK-LABEL: gpu.func @k
// CHECK:         %c4 = arith.constant 4 : index
// CHECK-NOT:     arith.constant
// CHECK-NEXT:    %i = arith.muli %tid, %c4 : index
// CHECK-NEXT:    %x = memref.load %in[%i] : memref<?xf32>
// CHECK-NEXT:    memref.store %x, %out[%i] : memref<?xf32>
// CHECK-NEXT:    %y = memref.load %in[%i] : memref<?xf32>
// CHECK:         scf.if %inside {
// CHECK-NEXT:      %s = arith.addf %x, %y : f32
// CHECK-NEXT:      memref.store %s, %out[%i] : memref<?xf32>
