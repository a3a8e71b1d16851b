// out = in^T through shared memory, 32x32 tiles, blocks of 32x8 threads (4 rows each).
// The tile is XOR-swizzled: element (r, c) lives at column c ^ r, so a warp writing a row
// and a warp reading a column each touch 32 different banks, with no padding.
// layoutkit simulate examples/kernels/transpose_swizzled.mlir --kernel transpose_swizzled \
//     --grid 32,32 --block 32,8 --arg in=in.npy --arg out=out.npy
module {
  gpu.module @kernels {
    gpu.func @transpose_swizzled(%in: memref<?x?xf32>, %out: memref<?x?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %tile = memref.alloc() : memref<32x32xf32, #gpu.address_space<workgroup>>
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
        %sc = arith.xori %tx, %r : index
        memref.store %v, %tile[%r, %sc] : memref<32x32xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %ocol = arith.addi %by32, %tx : index
      scf.for %j = %c0 to %c32 step %c8 {
        %r = arith.addi %ty, %j : index
        %orow = arith.addi %bx32, %r : index
        %sc = arith.xori %r, %tx : index
        %v = memref.load %tile[%tx, %sc] : memref<32x32xf32, #gpu.address_space<workgroup>>
        memref.store %v, %out[%orow, %ocol] : memref<?x?xf32>
      }
      gpu.return
    }
  }
}
