// c[i] = a[i] + b[i] for i < n: one thread per element, the tail guarded by scf.if.
// layoutkit simulate examples/kernels/vector_add.mlir --kernel vector_add --grid 16 --block 256 \
//     --arg a=a.npy --arg b=b.npy --arg c=c.npy
module {
  gpu.module @kernels {
    gpu.func @vector_add(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %n = memref.dim %c, %c0 : memref<?xf32>
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %inside = arith.cmpi ult, %i, %n : index
      scf.if %inside {
        %x = memref.load %a[%i] : memref<?xf32>
        %y = memref.load %b[%i] : memref<?xf32>
        %s = arith.addf %x, %y : f32
        memref.store %s, %c[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
