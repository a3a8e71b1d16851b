// C = A @ B with f16 A (M x K), B (K x N) and f32 C (M x N); M, N multiples of 128, K of 64.
// Each block of 128 threads (4 warps, 2 x 2) computes a 128 x 128 tile of C, stepping K by
// 64: it stages A (128 x 64) and B^T (128 x 64) in shared memory, then each warp issues
// nvgpu.mma.sync m16n8k16 over its 64 x 64 sub-tile (4 x 8 instructions per k step of 16),
// keeping its accumulators (vector<2x2xf32> per instruction) in private memory.
// Both shared tiles are XOR-swizzled in 16-byte chunks: element (r, c) is stored at column
// c ^ 8 * (r % 8), so the 8 rows a fragment load touches fall in 8 different bank groups
// (no bank conflicts on fragment loads; `simulate(..., bank_conflicts=True)` counts them).
// Fragments (PTX ISA, lane = 4 * group + pair):
//   A: reg r holds row group + 8*(r%2), cols 2*pair + 8*(r/2) + {0,1}
//   B: reg r holds k rows 2*pair + 8*r + {0,1}, col group
//   C: reg r holds row group + 8*r, cols 2*pair + {0,1}
// layoutkit simulate examples/kernels/matmul_mma.mlir --kernel matmul --grid 1,1 --block 128 \
//     --arg a=a.npy --arg b=b.npy --arg c=c.npy
module {
  gpu.module @kernels {
    gpu.func @matmul(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %zero_acc = arith.constant dense<0.0> : vector<2x2xf32>
      %zero_a = arith.constant dense<0.0> : vector<4x2xf16>
      %zero_b = arith.constant dense<0.0> : vector<2x2xf16>
      %as = memref.alloc() : memref<128x64xf16, #gpu.address_space<workgroup>>
      %bs = memref.alloc() : memref<128x64xf16, #gpu.address_space<workgroup>>
      %acc = memref.alloca() : memref<4x8x2x2xf32>
      %k_total = memref.dim %a, %c1 : memref<?x?xf16>
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %m0 = arith.muli %by, %c128 : index
      %n0 = arith.muli %bx, %c128 : index
      %lane = arith.remui %tid, %c32 : index
      %warp = arith.divui %tid, %c32 : index
      %group = arith.divui %lane, %c4 : index
      %pair = arith.remui %lane, %c4 : index
      %pair2 = arith.muli %pair, %c2 : index
      %warp_m = arith.divui %warp, %c2 : index
      %warp_n = arith.remui %warp, %c2 : index
      %wm = arith.muli %warp_m, %c64 : index
      %wn = arith.muli %warp_n, %c64 : index
      // fragment rows are group (+ 8, + multiples of 16): their swizzle is 8 * group
      %swz = arith.muli %group, %c8 : index
      %tid8 = arith.remui %tid, %c8 : index
      %tswz = arith.muli %tid8, %c8 : index
      scf.for %mi = %c0 to %c4 step %c1 {
        scf.for %ni = %c0 to %c8 step %c1 {
          vector.store %zero_acc, %acc[%mi, %ni, %c0, %c0] : memref<4x8x2x2xf32>, vector<2x2xf32>
        }
      }
      scf.for %k0 = %c0 to %k_total step %c64 {
        // stage A[m0:m0+128, k0:k0+64] with 8-wide vector loads (8 per thread)
        scf.for %i = %c0 to %c8 step %c1 {
          %i128 = arith.muli %i, %c128 : index
          %lin = arith.addi %i128, %tid : index
          %r = arith.divui %lin, %c8 : index
          %chunk = arith.remui %lin, %c8 : index
          %col = arith.muli %chunk, %c8 : index
          %grow = arith.addi %m0, %r : index
          %gcol = arith.addi %k0, %col : index
          %v = vector.load %a[%grow, %gcol] : memref<?x?xf16>, vector<8xf16>
          %r8 = arith.remui %r, %c8 : index
          %rswz = arith.muli %r8, %c8 : index
          %scol = arith.xori %col, %rswz : index
          vector.store %v, %as[%r, %scol] : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        }
        // stage B[k0:k0+64, n0:n0+128] transposed: thread t copies column n0 + t
        %gn = arith.addi %n0, %tid : index
        scf.for %k = %c0 to %c64 step %c1 {
          %gk = arith.addi %k0, %k : index
          %v = memref.load %b[%gk, %gn] : memref<?x?xf16>
          %sk = arith.xori %k, %tswz : index
          memref.store %v, %bs[%tid, %sk] : memref<128x64xf16, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        scf.for %kk = %c0 to %c64 step %c16 {
          %ku = arith.addi %kk, %pair2 : index
          %ku8 = arith.addi %ku, %c8 : index
          %ka = arith.xori %ku, %swz : index
          %ka8 = arith.xori %ku8, %swz : index
          scf.for %mi = %c0 to %c4 step %c1 {
            %mi16 = arith.muli %mi, %c16 : index
            %rbase = arith.addi %wm, %mi16 : index
            %ra = arith.addi %rbase, %group : index
            %ra8 = arith.addi %ra, %c8 : index
            %a0 = vector.load %as[%ra, %ka] : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<2xf16>
            %a1 = vector.load %as[%ra8, %ka] : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<2xf16>
            %a2 = vector.load %as[%ra, %ka8] : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<2xf16>
            %a3 = vector.load %as[%ra8, %ka8] : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<2xf16>
            %fa0 = vector.insert %a0, %zero_a [0] : vector<2xf16> into vector<4x2xf16>
            %fa1 = vector.insert %a1, %fa0 [1] : vector<2xf16> into vector<4x2xf16>
            %fa2 = vector.insert %a2, %fa1 [2] : vector<2xf16> into vector<4x2xf16>
            %fa = vector.insert %a3, %fa2 [3] : vector<2xf16> into vector<4x2xf16>
            scf.for %ni = %c0 to %c8 step %c1 {
              %ni8 = arith.muli %ni, %c8 : index
              %nbase = arith.addi %wn, %ni8 : index
              %nb = arith.addi %nbase, %group : index
              %b0 = vector.load %bs[%nb, %ka] : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<2xf16>
              %b1 = vector.load %bs[%nb, %ka8] : memref<128x64xf16, #gpu.address_space<workgroup>>, vector<2xf16>
              %fb0 = vector.insert %b0, %zero_b [0] : vector<2xf16> into vector<2x2xf16>
              %fb = vector.insert %b1, %fb0 [1] : vector<2xf16> into vector<2x2xf16>
              %cf = vector.load %acc[%mi, %ni, %c0, %c0] : memref<4x8x2x2xf32>, vector<2x2xf32>
              %d = nvgpu.mma.sync (%fa, %fb, %cf) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
              vector.store %d, %acc[%mi, %ni, %c0, %c0] : memref<4x8x2x2xf32>, vector<2x2xf32>
            }
          }
        }
        gpu.barrier
      }
      // write C: register r of a C fragment is row group + 8*r, columns 2*pair, 2*pair+1
      scf.for %mi = %c0 to %c4 step %c1 {
        %mi16 = arith.muli %mi, %c16 : index
        %rbase = arith.addi %wm, %mi16 : index
        %rw = arith.addi %rbase, %group : index
        %row = arith.addi %m0, %rw : index
        %row8 = arith.addi %row, %c8 : index
        scf.for %ni = %c0 to %c8 step %c1 {
          %ni8 = arith.muli %ni, %c8 : index
          %nbase = arith.addi %wn, %ni8 : index
          %cw = arith.addi %nbase, %pair2 : index
          %col = arith.addi %n0, %cw : index
          %d = vector.load %acc[%mi, %ni, %c0, %c0] : memref<4x8x2x2xf32>, vector<2x2xf32>
          %d0 = vector.extract %d[0] : vector<2xf32> from vector<2x2xf32>
          %d1 = vector.extract %d[1] : vector<2xf32> from vector<2x2xf32>
          vector.store %d0, %c[%row, %col] : memref<?x?xf32>, vector<2xf32>
          vector.store %d1, %c[%row8, %col] : memref<?x?xf32>, vector<2xf32>
        }
      }
      gpu.return
    }
  }
}
