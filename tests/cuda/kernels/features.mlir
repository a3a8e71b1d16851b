module {
  gpu.module @features {
    gpu.func @warp_ops(%x: memref<64xf32>, %h: memref<64xf16>, %out: memref<64xf32>, %flags: memref<64xi32>) kernel {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c16 = arith.constant 16 : i32
      %c32 = arith.constant 32 : i32
      %v = memref.load %x[%tid] : memref<64xf32>
      %s, %ok = gpu.shuffle xor %v, %c16, %c32 : f32
      %d, %ok2 = gpu.shuffle down %v, %c16, %c32 : f32
      %sum = gpu.subgroup_reduce add %v : (f32) -> f32
      %mx = gpu.subgroup_reduce maxnumf %v cluster(size = 4) : (f32) -> f32
      %hv = memref.load %h[%tid] : memref<64xf16>
      %hs = gpu.subgroup_reduce add %hv : (f16) -> f16
      %hf = arith.extf %hs : f16 to f32
      %t = arith.addf %s, %d : f32
      %t2 = arith.addf %t, %sum : f32
      %t3 = arith.mulf %t2, %mx : f32
      %t4 = arith.addf %t3, %hf : f32
      %pos = arith.cmpf ogt, %t4, %v : f32
      %sel = arith.select %pos, %t4, %v : f32
      %e = math.exp %sel : f32
      %init = arith.constant 0.0 : f32
      %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%a = %init) -> (f32) {
        %kk = arith.index_cast %k : index to i32
        %kf = arith.sitofp %kk : i32 to f32
        %a2 = arith.addf %a, %kf : f32
        scf.yield %a2 : f32
      }
      %r = scf.if %ok -> (f32) {
        %q = arith.addf %e, %acc : f32
        scf.yield %q : f32
      } else {
        scf.yield %acc : f32
      }
      memref.store %r, %out[%tid] : memref<64xf32>
      %flag = arith.extui %ok2 : i1 to i32
      memref.store %flag, %flags[%tid] : memref<64xi32>
      %hh = arith.truncf %r : f32 to f16
      %hh2 = arith.mulf %hh, %hv : f16
      memref.store %hh2, %h[%tid] : memref<64xf16>
      gpu.return
    }
    gpu.func @mma_tile(%a: memref<16x16xf16>, %b: memref<16x8xf16>, %c: memref<16x8xf32>) kernel {
      %lane = gpu.lane_id
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %group = arith.divui %lane, %c4 : index
      %quad = arith.remui %lane, %c4 : index
      %col = arith.muli %quad, %c2 : index
      %row8 = arith.addi %group, %c8 : index
      %col8 = arith.addi %col, %c8 : index
      %a0 = vector.load %a[%group, %col] : memref<16x16xf16>, vector<2xf16>
      %a1 = vector.load %a[%row8, %col] : memref<16x16xf16>, vector<2xf16>
      %a2 = vector.load %a[%group, %col8] : memref<16x16xf16>, vector<2xf16>
      %a3 = vector.load %a[%row8, %col8] : memref<16x16xf16>, vector<2xf16>
      %za = arith.constant dense<0.0> : vector<4x2xf16>
      %fa0 = vector.insert %a0, %za [0] : vector<2xf16> into vector<4x2xf16>
      %fa1 = vector.insert %a1, %fa0 [1] : vector<2xf16> into vector<4x2xf16>
      %fa2 = vector.insert %a2, %fa1 [2] : vector<2xf16> into vector<4x2xf16>
      %fa3 = vector.insert %a3, %fa2 [3] : vector<2xf16> into vector<4x2xf16>
      %b0 = memref.load %b[%col, %group] : memref<16x8xf16>
      %zb = arith.constant dense<0.0> : vector<2x2xf16>
      %fb = vector.insert %b0, %zb [0, 0] : f16 into vector<2x2xf16>
      %zc = arith.constant dense<0.0> : vector<2x2xf32>
      %d = nvgpu.mma.sync (%fa3, %fb, %zc) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
      %d0 = vector.extract %d[0] : vector<2xf32> from vector<2x2xf32>
      vector.store %d0, %c[%group, %col] : memref<16x8xf32>, vector<2xf32>
      %d1 = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
      memref.store %d1, %c[%row8, %col] : memref<16x8xf32>
      gpu.return
    }
    gpu.func @shared_transpose(%in: memref<64x64xf32>, %out: memref<64x64xf32>) kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %c32 = arith.constant 32 : index
      %tile = memref.alloc() : memref<32x32xf32, #gpu.address_space<workgroup>>
      %r0 = arith.muli %by, %c32 : index
      %col0 = arith.muli %bx, %c32 : index
      %r = arith.addi %r0, %ty : index
      %cc = arith.addi %col0, %tx : index
      %v = memref.load %in[%r, %cc] : memref<64x64xf32>
      %sw = arith.xori %tx, %ty : index
      memref.store %v, %tile[%ty, %sw] : memref<32x32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %sw2 = arith.xori %ty, %tx : index
      %w = memref.load %tile[%tx, %sw2] : memref<32x32xf32, #gpu.address_space<workgroup>>
      %orow = arith.addi %col0, %ty : index
      %ocol = arith.addi %r0, %tx : index
      memref.store %w, %out[%orow, %ocol] : memref<64x64xf32>
      gpu.return
    }
  }
}
