// Vertical warp specialization, ping-pong (seed 002): c = a @ b with a (4 tm) x K, b K x 32, K
// a multiple of 8. Each workgroup computes a 4x32 tile of c; its 4 subgroups split in two
// clusters doing the same work on their own 2 rows: per K step a memory phase (copy the tiles
// of a and b into the cluster's shared buffers) and a math phase, each ended by bar.sync 1 of
// the whole block. tg.pong is sheared one step past the barrier (an extra sync first,
// tg.ping one last), so while tg.ping does math on step k, tg.pong copies step k: the block
// alternates the two phases between the halves instead of running them in lockstep.
//   layoutkit compile examples/pcf/ping_pong.mlir --pipeline pcf-to-gpu --workgroup-size 128 --subgroup-size 32 -o pp.mlir
//   layoutkit simulate pp.mlir --function pp_matmul --arg a=a.npy --arg b=b.npy --arg c=c.npy --arg tm=3 --out res
func.func @pp_matmul(%a: memref<?x?xf32>, %b: memref<?x32xf32>, %c: memref<?x32xf32>, %tm: index) -> memref<?x32xf32> {
  %r = pcf.loop scope(#iree_codegen.workgroup_scope) count(%tm)
    execute(%out = %c)[%bi: index]
         : (!pcf.sref<?x32xf32, sync(#iree_codegen.workgroup_scope)>) -> (memref<?x32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %k = memref.dim %a, %c1 : memref<?x?xf32>
    %steps = arith.divui %k, %c8 : index
    %row0 = arith.muli %bi, %c4 : index
    %a_s = pcf.alloc() : !pcf.sref<2x2x8xf32, #iree_gpu.subgroup_scope>
    %b_s = pcf.alloc() : !pcf.sref<2x8x32xf32, #iree_gpu.subgroup_scope>
    pcf.shared_executor scope(#iree_gpu.subgroup_scope)
      execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
      %half = arith.constant 2 : index
      pcf.shared_executor.tile_group %tg split(%half) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
      ^bb0(%ping: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.ping>,
           %pong: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.pong>):
        %threads = arith.constant 128 : i32
        %one = arith.constant 1 : i32
        pcf.shared_executor.run_thread %ping : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.ping> {
        ^bb0(%w: index):
          pcf.generic scope(#iree_gpu.lane_scope) execute[%lane: index, %lanes: index] {
            %cl = arith.constant 0 : index
            %zero = arith.constant 0.0 : f32
            %wl = arith.muli %w, %c32 : index
            %p = arith.addi %wl, %lane : index
            %rows = arith.muli %cl, %c2 : index
            %crow0 = arith.addi %row0, %rows : index
            %acc = scf.for %kt = %c0 to %steps step %c1 iter_args(%x = %zero) -> (f32) {
              // memory phase: this cluster's 2x8 tile of a and 8x32 tile of b
              %k0 = arith.muli %kt, %c8 : index
              %in_a = arith.cmpi ult, %p, %c16 : index
              scf.if %in_a {
                %ar = arith.divui %p, %c8 : index
                %ak = arith.remui %p, %c8 : index
                %grow = arith.addi %crow0, %ar : index
                %gk = arith.addi %k0, %ak : index
                %v = memref.load %a[%grow, %gk] : memref<?x?xf32>
                %vv = vector.broadcast %v : f32 to vector<1x1x1xf32>
                pcf.write_slice %vv into %a_s[%cl, %ar, %ak] [1, 1, 1] [1, 1, 1] : vector<1x1x1xf32> into !pcf.sref<2x2x8xf32, #iree_gpu.subgroup_scope>
              }
              scf.for %q = %c0 to %c4 step %c1 {
                %q64 = arith.muli %q, %c64 : index
                %e = arith.addi %p, %q64 : index
                %bk = arith.divui %e, %c32 : index
                %bc = arith.remui %e, %c32 : index
                %gk = arith.addi %k0, %bk : index
                %y = memref.load %b[%gk, %bc] : memref<?x32xf32>
                %yv = vector.broadcast %y : f32 to vector<1x1x1xf32>
                pcf.write_slice %yv into %b_s[%cl, %bk, %bc] [1, 1, 1] [1, 1, 1] : vector<1x1x1xf32> into !pcf.sref<2x8x32xf32, #iree_gpu.subgroup_scope>
              }
              nvvm.barrier id = %one number_of_threads = %threads
              // math phase: row w of the cluster's rows, column lane
              %sum = scf.for %kk = %c0 to %c8 step %c1 iter_args(%s = %x) -> (f32) {
                %av = pcf.read_slice %a_s[%cl, %w, %kk] [1, 1, 1] [1, 1, 1] : !pcf.sref<2x2x8xf32, #iree_gpu.subgroup_scope> to vector<1x1x1xf32>
                %bv = pcf.read_slice %b_s[%cl, %kk, %lane] [1, 1, 1] [1, 1, 1] : !pcf.sref<2x8x32xf32, #iree_gpu.subgroup_scope> to vector<1x1x1xf32>
                %ae = vector.extract %av[0, 0, 0] : f32 from vector<1x1x1xf32>
                %be = vector.extract %bv[0, 0, 0] : f32 from vector<1x1x1xf32>
                %m = arith.mulf %ae, %be : f32
                %n = arith.addf %s, %m : f32
                scf.yield %n : f32
              }
              nvvm.barrier id = %one number_of_threads = %threads
              scf.yield %sum : f32
            }
            nvvm.barrier id = %one number_of_threads = %threads
            %orow = arith.addi %crow0, %w : index
            %ov = vector.broadcast %acc : f32 to vector<1x1xf32>
            pcf.write_slice %ov into %out[%orow, %lane] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<?x32xf32, sync(#iree_codegen.workgroup_scope)>
            pcf.return
          }
          pcf.yield
        }
        pcf.shared_executor.run_thread %pong : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.pong> {
        ^bb0(%w: index):
          pcf.generic scope(#iree_gpu.lane_scope) execute[%lane: index, %lanes: index] {
            %cl = arith.constant 1 : index
            %zero = arith.constant 0.0 : f32
            %wl = arith.muli %w, %c32 : index
            %p = arith.addi %wl, %lane : index
            %rows = arith.muli %cl, %c2 : index
            %crow0 = arith.addi %row0, %rows : index
            nvvm.barrier id = %one number_of_threads = %threads
            %acc = scf.for %kt = %c0 to %steps step %c1 iter_args(%x = %zero) -> (f32) {
              // memory phase: this cluster's 2x8 tile of a and 8x32 tile of b
              %k0 = arith.muli %kt, %c8 : index
              %in_a = arith.cmpi ult, %p, %c16 : index
              scf.if %in_a {
                %ar = arith.divui %p, %c8 : index
                %ak = arith.remui %p, %c8 : index
                %grow = arith.addi %crow0, %ar : index
                %gk = arith.addi %k0, %ak : index
                %v = memref.load %a[%grow, %gk] : memref<?x?xf32>
                %vv = vector.broadcast %v : f32 to vector<1x1x1xf32>
                pcf.write_slice %vv into %a_s[%cl, %ar, %ak] [1, 1, 1] [1, 1, 1] : vector<1x1x1xf32> into !pcf.sref<2x2x8xf32, #iree_gpu.subgroup_scope>
              }
              scf.for %q = %c0 to %c4 step %c1 {
                %q64 = arith.muli %q, %c64 : index
                %e = arith.addi %p, %q64 : index
                %bk = arith.divui %e, %c32 : index
                %bc = arith.remui %e, %c32 : index
                %gk = arith.addi %k0, %bk : index
                %y = memref.load %b[%gk, %bc] : memref<?x32xf32>
                %yv = vector.broadcast %y : f32 to vector<1x1x1xf32>
                pcf.write_slice %yv into %b_s[%cl, %bk, %bc] [1, 1, 1] [1, 1, 1] : vector<1x1x1xf32> into !pcf.sref<2x8x32xf32, #iree_gpu.subgroup_scope>
              }
              nvvm.barrier id = %one number_of_threads = %threads
              // math phase: row w of the cluster's rows, column lane
              %sum = scf.for %kk = %c0 to %c8 step %c1 iter_args(%s = %x) -> (f32) {
                %av = pcf.read_slice %a_s[%cl, %w, %kk] [1, 1, 1] [1, 1, 1] : !pcf.sref<2x2x8xf32, #iree_gpu.subgroup_scope> to vector<1x1x1xf32>
                %bv = pcf.read_slice %b_s[%cl, %kk, %lane] [1, 1, 1] [1, 1, 1] : !pcf.sref<2x8x32xf32, #iree_gpu.subgroup_scope> to vector<1x1x1xf32>
                %ae = vector.extract %av[0, 0, 0] : f32 from vector<1x1x1xf32>
                %be = vector.extract %bv[0, 0, 0] : f32 from vector<1x1x1xf32>
                %m = arith.mulf %ae, %be : f32
                %n = arith.addf %s, %m : f32
                scf.yield %n : f32
              }
              nvvm.barrier id = %one number_of_threads = %threads
              scf.yield %sum : f32
            }
            %orow = arith.addi %crow0, %w : index
            %ov = vector.broadcast %acc : f32 to vector<1x1xf32>
            pcf.write_slice %ov into %out[%orow, %lane] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<?x32xf32, sync(#iree_codegen.workgroup_scope)>
            pcf.return
          }
          pcf.yield
        }
        pcf.yield
      }
      pcf.return
    }
    pcf.return
  }
  return %r : memref<?x32xf32>
}
