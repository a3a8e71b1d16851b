// c = a @ b for 64x64 f32 matrices, b given transposed (bt = b^T): thread (tx, ty) of one
// 16x16 block computes the 4x4 tile c[4ty:4ty+4, 4tx:4tx+4] in registers. Per step of k it
// loads a 4x4 tile of a and of bt, transposes the bt tile to b's orientation and
// accumulates with vector.contract (a matmul: d[i, j] = c[i, j] + sum_k a[i, k] b[k, j]).
// Then rowmax[tx, r] = the max of row r of c over the thread's 4 columns (vector.multi_reduction).
// layoutkit simulate examples/kernels/tile_matmul.mlir --kernel tile_matmul --grid 1 --block 16,16 \
//     --arg a=a.npy --arg bt=bt.npy --arg c=c.npy --arg rowmax=rowmax.npy
// layoutkit emit-cuda examples/kernels/tile_matmul.mlir --compile
module {
  gpu.module @kernels {
    gpu.func @tile_matmul(%a: memref<64x64xf32>, %bt: memref<64x64xf32>, %c: memref<64x64xf32>, %rowmax: memref<16x64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c64 = arith.constant 64 : index
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %row = arith.muli %ty, %c4 : index
      %col = arith.muli %tx, %c4 : index
      %zero = arith.constant dense<0.000000e+00> : vector<4x4xf32>
      %tile = scf.for %k = %c0 to %c64 step %c4 iter_args(%sum = %zero) -> (vector<4x4xf32>) {
        %at = vector.load %a[%row, %k] : memref<64x64xf32>, vector<4x4xf32>
        %btt = vector.load %bt[%col, %k] : memref<64x64xf32>, vector<4x4xf32>
        %bk = vector.transpose %btt, [1, 0] : vector<4x4xf32> to vector<4x4xf32>
        %next = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %at, %bk, %sum : vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf32>
        scf.yield %next : vector<4x4xf32>
      }
      vector.store %tile, %c[%row, %col] : memref<64x64xf32>, vector<4x4xf32>
      %lowest = arith.constant dense<-3.000000e+38> : vector<4xf32>
      %max = vector.multi_reduction <maxnumf>, %tile, %lowest [1] : vector<4x4xf32> to vector<4xf32>
      vector.store %max, %rowmax[%tx, %row] : memref<16x64xf32>, vector<4xf32>
      gpu.return
    }
  }
}
