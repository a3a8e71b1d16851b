// out[b] = sum of in[b*256 .. b*256+255] (zeros past the end): blocks of 256 threads.
// Each warp sums its 32 values with shuffles (xor 16, 8, 4, 2, 1); lane 0 of each warp
// puts its sum in shared memory; after a barrier warp 0 adds the 8 partial sums with
// gpu.subgroup_reduce and thread 0 writes the block's total.
// layoutkit simulate examples/kernels/block_sum.mlir --kernel block_sum --grid 64 --block 256 \
//     --arg in=in.npy --arg out=out.npy
module {
  gpu.module @kernels {
    gpu.func @block_sum(%in: memref<?xf32>, %out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c8 = arith.constant 8 : index
      %zero = arith.constant 0.0 : f32
      %w32 = arith.constant 32 : i32
      %partial = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
      %n = memref.dim %in, %c0 : memref<?xf32>
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %inside = arith.cmpi ult, %i, %n : index
      %x = scf.if %inside -> (f32) {
        %v = memref.load %in[%i] : memref<?xf32>
        scf.yield %v : f32
      } else {
        scf.yield %zero : f32
      }
      %o16 = arith.constant 16 : i32
      %o8 = arith.constant 8 : i32
      %o4 = arith.constant 4 : i32
      %o2 = arith.constant 2 : i32
      %o1 = arith.constant 1 : i32
      %y16, %ok16 = gpu.shuffle xor %x, %o16, %w32 : f32
      %s16 = arith.addf %x, %y16 : f32
      %y8, %ok8 = gpu.shuffle xor %s16, %o8, %w32 : f32
      %s8 = arith.addf %s16, %y8 : f32
      %y4, %ok4 = gpu.shuffle xor %s8, %o4, %w32 : f32
      %s4 = arith.addf %s8, %y4 : f32
      %y2, %ok2 = gpu.shuffle xor %s4, %o2, %w32 : f32
      %s2 = arith.addf %s4, %y2 : f32
      %y1, %ok1 = gpu.shuffle xor %s2, %o1, %w32 : f32
      %warp_sum = arith.addf %s2, %y1 : f32
      %lane = arith.remui %tid, %c32 : index
      %warp = arith.divui %tid, %c32 : index
      %lane0 = arith.cmpi eq, %lane, %c0 : index
      scf.if %lane0 {
        memref.store %warp_sum, %partial[%warp] : memref<8xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %warp0 = arith.cmpi eq, %warp, %c0 : index
      scf.if %warp0 {
        %has = arith.cmpi ult, %lane, %c8 : index
        %p = scf.if %has -> (f32) {
          %v = memref.load %partial[%lane] : memref<8xf32, #gpu.address_space<workgroup>>
          scf.yield %v : f32
        } else {
          scf.yield %zero : f32
        }
        %total = gpu.subgroup_reduce add %p : (f32) -> f32
        %first = arith.cmpi eq, %tid, %c0 : index
        scf.if %first {
          memref.store %total, %out[%bid] : memref<?xf32>
        }
      }
      gpu.return
    }
  }
}
