// out[r, :] = softmax(in[r, :]): one warp per row, blocks of 32x4 threads (4 rows per block).
// Lane l visits columns l, l+32, ... (a loop whose bounds depend on the thread); the row's
// max comes from xor shuffles, its sum of exponentials from gpu.subgroup_reduce.
// layoutkit simulate examples/kernels/softmax.mlir --kernel softmax --grid 64 --block 32,4 \
//     --arg in=in.npy --arg out=out.npy
module {
  gpu.module @kernels {
    gpu.func @softmax(%in: memref<?x?xf32>, %out: memref<?x?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %w32 = arith.constant 32 : i32
      %zero = arith.constant 0.0 : f32
      %ninf = arith.constant 0xFF800000 : f32
      %rows = memref.dim %in, %c0 : memref<?x?xf32>
      %cols = memref.dim %in, %c1 : memref<?x?xf32>
      %lane = gpu.thread_id x
      %ty = gpu.thread_id y
      %bid = gpu.block_id x
      %b4 = arith.muli %bid, %c4 : index
      %row = arith.addi %b4, %ty : index
      %inside = arith.cmpi ult, %row, %rows : index
      scf.if %inside {
        %m = scf.for %j = %lane to %cols step %c32 iter_args(%acc = %ninf) -> (f32) {
          %v = memref.load %in[%row, %j] : memref<?x?xf32>
          %n = arith.maximumf %acc, %v : f32
          scf.yield %n : f32
        }
        %o16 = arith.constant 16 : i32
        %o8 = arith.constant 8 : i32
        %o4 = arith.constant 4 : i32
        %o2 = arith.constant 2 : i32
        %o1 = arith.constant 1 : i32
        %y16, %k16 = gpu.shuffle xor %m, %o16, %w32 : f32
        %m16 = arith.maximumf %m, %y16 : f32
        %y8, %k8 = gpu.shuffle xor %m16, %o8, %w32 : f32
        %m8 = arith.maximumf %m16, %y8 : f32
        %y4, %k4 = gpu.shuffle xor %m8, %o4, %w32 : f32
        %m4 = arith.maximumf %m8, %y4 : f32
        %y2, %k2 = gpu.shuffle xor %m4, %o2, %w32 : f32
        %m2 = arith.maximumf %m4, %y2 : f32
        %y1, %k1 = gpu.shuffle xor %m2, %o1, %w32 : f32
        %rowmax = arith.maximumf %m2, %y1 : f32
        %s = scf.for %j = %lane to %cols step %c32 iter_args(%acc = %zero) -> (f32) {
          %v = memref.load %in[%row, %j] : memref<?x?xf32>
          %d = arith.subf %v, %rowmax : f32
          %e = math.exp %d : f32
          %n = arith.addf %acc, %e : f32
          scf.yield %n : f32
        }
        %total = gpu.subgroup_reduce add %s : (f32) -> f32
        scf.for %j = %lane to %cols step %c32 {
          %v = memref.load %in[%row, %j] : memref<?x?xf32>
          %d = arith.subf %v, %rowmax : f32
          %e = math.exp %d : f32
          %p = arith.divf %e, %total : f32
          memref.store %p, %out[%row, %j] : memref<?x?xf32>
        }
      }
      gpu.return
    }
  }
}
