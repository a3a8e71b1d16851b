// out = in^T through shared memory, 32x32 tiles, blocks of 32x8 threads (4 rows each).
// The tile is padded to 33 columns: reading a tile column touches 32 different banks.
// layoutkit simulate examples/kernels/transpose_padded.mlir --kernel transpose_padded \
//     --grid 32,32 --block 32,8 --arg in=in.npy --arg out=out.npy
module {
  gpu.module @kernels {
    gpu.func @transpose_padded(%in: memref<?x?xf32>, %out: memref<?x?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %tile = memref.alloc() : memref<32x33xf32, #gpu.address_space<workgroup>>
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %bx32 = arith.muli %bx, %c32 : index
      %by32 = arith.muli %by, %c32 : index
      %col = arith.addi %bx32, %tx : index
      scf.for %j = %c0 to %c32 step %c8 {
        %r = arith.addi %ty, %j : index
        %row = arith.addi %by32, %r : index
        %v = memref.load %in[%row, %col] : memref<?x?xf32>
        memref.store %v, %tile[%r, %tx] : memref<32x33xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %ocol = arith.addi %by32, %tx : index
      scf.for %j = %c0 to %c32 step %c8 {
        %r = arith.addi %ty, %j : index
        %orow = arith.addi %bx32, %r : index
        %v = memref.load %tile[%tx, %r] : memref<32x33xf32, #gpu.address_space<workgroup>>
        memref.store %v, %out[%orow, %ocol] : memref<?x?xf32>
      }
      gpu.return
    }
  }
}
