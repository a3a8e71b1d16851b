// The computation of warp_specialized.mlir and ping_pong.mlir without specialization: c = a @ b
// with a (4 tm) x K, b K x 32, K a multiple of 8. All 4 subgroups of a workgroup copy the tiles
// of step kt into shared memory, wait at the block's barrier, each thread computes one element
// of the 4x32 tile (row = subgroup, column = lane), and wait again before the next copy.
//   layoutkit compile examples/pcf/plain_matmul.mlir --pipeline pcf-to-gpu --workgroup-size 128 --subgroup-size 32 -o plain.mlir
//   layoutkit simulate plain.mlir --function plain_matmul --arg a=a.npy --arg b=b.npy --arg c=c.npy --arg tm=3 --out res
func.func @plain_matmul(%a: memref<?x?xf32>, %b: memref<?x32xf32>, %c: memref<?x32xf32>, %tm: index) -> memref<?x32xf32> {
  %r = pcf.loop scope(#iree_codegen.workgroup_scope) count(%tm)
    execute(%out = %c)[%bi: index]
         : (!pcf.sref<?x32xf32, sync(#iree_codegen.workgroup_scope)>) -> (memref<?x32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %k = memref.dim %a, %c1 : memref<?x?xf32>
    %steps = arith.divui %k, %c8 : index
    %row0 = arith.muli %bi, %c4 : index
    %a_s = pcf.alloc() : !pcf.sref<4x8xf32, #iree_gpu.subgroup_scope>
    %b_s = pcf.alloc() : !pcf.sref<8x32xf32, #iree_gpu.subgroup_scope>
    pcf.generic scope(#iree_gpu.subgroup_scope) execute[%w: index, %nw: index] {
      pcf.generic scope(#iree_gpu.lane_scope) execute[%lane: index, %lanes: index] {
        %zero = arith.constant 0.0 : f32
        %wl = arith.muli %w, %c32 : index
        %p = arith.addi %wl, %lane : index
        %acc = scf.for %kt = %c0 to %steps step %c1 iter_args(%x = %zero) -> (f32) {
          %k0 = arith.muli %kt, %c8 : index
          %in_a = arith.cmpi ult, %p, %c32 : index
          scf.if %in_a {
            %ar = arith.divui %p, %c8 : index
            %ak = arith.remui %p, %c8 : index
            %grow = arith.addi %row0, %ar : index
            %gk = arith.addi %k0, %ak : index
            %v = memref.load %a[%grow, %gk] : memref<?x?xf32>
            %vv = vector.broadcast %v : f32 to vector<1x1xf32>
            pcf.write_slice %vv into %a_s[%ar, %ak] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<4x8xf32, #iree_gpu.subgroup_scope>
          }
          scf.for %q = %c0 to %c2 step %c1 {
            %q128 = arith.muli %q, %c128 : index
            %e = arith.addi %p, %q128 : index
            %bk = arith.divui %e, %c32 : index
            %bc = arith.remui %e, %c32 : index
            %gk = arith.addi %k0, %bk : index
            %y = memref.load %b[%gk, %bc] : memref<?x32xf32>
            %yv = vector.broadcast %y : f32 to vector<1x1xf32>
            pcf.write_slice %yv into %b_s[%bk, %bc] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<8x32xf32, #iree_gpu.subgroup_scope>
          }
          nvvm.barrier
          %sum = scf.for %kk = %c0 to %c8 step %c1 iter_args(%s = %x) -> (f32) {
            %av = pcf.read_slice %a_s[%w, %kk] [1, 1] [1, 1] : !pcf.sref<4x8xf32, #iree_gpu.subgroup_scope> to vector<1x1xf32>
            %bv = pcf.read_slice %b_s[%kk, %lane] [1, 1] [1, 1] : !pcf.sref<8x32xf32, #iree_gpu.subgroup_scope> to vector<1x1xf32>
            %ae = vector.extract %av[0, 0] : f32 from vector<1x1xf32>
            %be = vector.extract %bv[0, 0] : f32 from vector<1x1xf32>
            %m = arith.mulf %ae, %be : f32
            %n = arith.addf %s, %m : f32
            scf.yield %n : f32
          }
          nvvm.barrier
          scf.yield %sum : f32
        }
        %orow = arith.addi %row0, %w : index
        %ov = vector.broadcast %acc : f32 to vector<1x1xf32>
        pcf.write_slice %ov into %out[%orow, %lane] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<?x32xf32, sync(#iree_codegen.workgroup_scope)>
        pcf.return
      }
      pcf.return
    }
    pcf.return
  }
  return %r : memref<?x32xf32>
}
