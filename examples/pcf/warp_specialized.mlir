// Horizontal warp specialization (seed 002): c = a @ b with a (4 tm) x K, b K x 32, K a
// multiple of 8. Each workgroup computes a 4x32 tile of c; its 4 subgroups split in two
// clusters: tg.load (subgroups 0-1) copies the 4x8 tile of a and the 8x32 tile of b of step kt
// into stage kt mod 2 of shared memory while tg.compute (subgroups 2-3) multiplies the tiles
// of step kt - 1. Named barriers hand each stage over: full[s] (ids 1, 2: the loader
// arrives, the computer waits), empty[s] (ids 3, 4: the computer arrives, the loader waits
// before overwriting the stage two steps later).
//   layoutkit compile examples/pcf/warp_specialized.mlir --pipeline pcf-to-gpu --workgroup-size 128 --subgroup-size 32 -o ws.mlir
//   layoutkit simulate ws.mlir --function ws_matmul --arg a=a.npy --arg b=b.npy --arg c=c.npy --arg tm=3 --out res
func.func @ws_matmul(%a: memref<?x?xf32>, %b: memref<?x32xf32>, %c: memref<?x32xf32>, %tm: index) -> memref<?x32xf32> {
  %r = pcf.loop scope(#iree_codegen.workgroup_scope) count(%tm)
    execute(%out = %c)[%bi: index]
         : (!pcf.sref<?x32xf32, sync(#iree_codegen.workgroup_scope)>) -> (memref<?x32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %k = memref.dim %a, %c1 : memref<?x?xf32>
    %steps = arith.divui %k, %c8 : index
    %row0 = arith.muli %bi, %c4 : index
    %a_s = pcf.alloc() : !pcf.sref<2x4x8xf32, #iree_gpu.subgroup_scope>
    %b_s = pcf.alloc() : !pcf.sref<2x8x32xf32, #iree_gpu.subgroup_scope>
    pcf.shared_executor scope(#iree_gpu.subgroup_scope)
      execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
      %half = arith.constant 2 : index
      pcf.shared_executor.tile_group %tg split(%half) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
      ^bb0(%load: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.load>,
           %compute: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.compute>):
        %threads = arith.constant 128 : i32
        %one = arith.constant 1 : i32
        %three = arith.constant 3 : i32
        pcf.shared_executor.run_thread %load : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.load> {
        ^bb0(%w: index):
          pcf.generic scope(#iree_gpu.lane_scope) execute[%lane: index, %lanes: index] {
            %wl = arith.muli %w, %c32 : index
            %p = arith.addi %wl, %lane : index
            scf.for %kt = %c0 to %steps step %c1 {
              %s = arith.remui %kt, %c2 : index
              %s32 = arith.index_cast %s : index to i32
              %full = arith.addi %one, %s32 : i32
              %empty = arith.addi %three, %s32 : i32
              %reused = arith.cmpi uge, %kt, %c2 : index
              scf.if %reused {
                nvvm.barrier id = %empty number_of_threads = %threads
              }
              %k0 = arith.muli %kt, %c8 : index
              %in_a = arith.cmpi ult, %p, %c32 : index
              scf.if %in_a {
                %ar = arith.divui %p, %c8 : index
                %ak = arith.remui %p, %c8 : index
                %grow = arith.addi %row0, %ar : index
                %gk = arith.addi %k0, %ak : index
                %x = memref.load %a[%grow, %gk] : memref<?x?xf32>
                %xv = vector.broadcast %x : f32 to vector<1x1x1xf32>
                pcf.write_slice %xv into %a_s[%s, %ar, %ak] [1, 1, 1] [1, 1, 1] : vector<1x1x1xf32> into !pcf.sref<2x4x8xf32, #iree_gpu.subgroup_scope>
              }
              scf.for %q = %c0 to %c4 step %c1 {
                %q64 = arith.muli %q, %c32 : index
                %q2 = arith.muli %q64, %c2 : index
                %e = arith.addi %p, %q2 : index
                %bk = arith.divui %e, %c32 : index
                %bc = arith.remui %e, %c32 : index
                %gk = arith.addi %k0, %bk : index
                %y = memref.load %b[%gk, %bc] : memref<?x32xf32>
                %yv = vector.broadcast %y : f32 to vector<1x1x1xf32>
                pcf.write_slice %yv into %b_s[%s, %bk, %bc] [1, 1, 1] [1, 1, 1] : vector<1x1x1xf32> into !pcf.sref<2x8x32xf32, #iree_gpu.subgroup_scope>
              }
              nvvm.barrier.arrive id = %full number_of_threads = %threads
            }
            pcf.return
          }
          pcf.yield
        }
        pcf.shared_executor.run_thread %compute : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.compute> {
        ^bb0(%w: index):
          pcf.generic scope(#iree_gpu.lane_scope) execute[%lane: index, %lanes: index] {
            %zero = arith.constant 0.0 : f32
            %r1 = arith.addi %w, %c2 : index
            %acc:2 = scf.for %kt = %c0 to %steps step %c1 iter_args(%acc0 = %zero, %acc1 = %zero) -> (f32, f32) {
              %s = arith.remui %kt, %c2 : index
              %s32 = arith.index_cast %s : index to i32
              %full = arith.addi %one, %s32 : i32
              %empty = arith.addi %three, %s32 : i32
              nvvm.barrier id = %full number_of_threads = %threads
              %sum:2 = scf.for %kk = %c0 to %c8 step %c1 iter_args(%x0 = %acc0, %x1 = %acc1) -> (f32, f32) {
                %bv = pcf.read_slice %b_s[%s, %kk, %lane] [1, 1, 1] [1, 1, 1] : !pcf.sref<2x8x32xf32, #iree_gpu.subgroup_scope> to vector<1x1x1xf32>
                %a0v = pcf.read_slice %a_s[%s, %w, %kk] [1, 1, 1] [1, 1, 1] : !pcf.sref<2x4x8xf32, #iree_gpu.subgroup_scope> to vector<1x1x1xf32>
                %a1v = pcf.read_slice %a_s[%s, %r1, %kk] [1, 1, 1] [1, 1, 1] : !pcf.sref<2x4x8xf32, #iree_gpu.subgroup_scope> to vector<1x1x1xf32>
                %bx = vector.extract %bv[0, 0, 0] : f32 from vector<1x1x1xf32>
                %a0 = vector.extract %a0v[0, 0, 0] : f32 from vector<1x1x1xf32>
                %a1 = vector.extract %a1v[0, 0, 0] : f32 from vector<1x1x1xf32>
                %p0 = arith.mulf %a0, %bx : f32
                %p1 = arith.mulf %a1, %bx : f32
                %n0 = arith.addf %x0, %p0 : f32
                %n1 = arith.addf %x1, %p1 : f32
                scf.yield %n0, %n1 : f32, f32
              }
              %next = arith.addi %kt, %c2 : index
              %refill = arith.cmpi ult, %next, %steps : index
              scf.if %refill {
                nvvm.barrier.arrive id = %empty number_of_threads = %threads
              }
              scf.yield %sum#0, %sum#1 : f32, f32
            }
            %row_a = arith.addi %row0, %w : index
            %row_b = arith.addi %row0, %r1 : index
            %v0 = vector.broadcast %acc#0 : f32 to vector<1x1xf32>
            %v1 = vector.broadcast %acc#1 : f32 to vector<1x1xf32>
            pcf.write_slice %v0 into %out[%row_a, %lane] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<?x32xf32, sync(#iree_codegen.workgroup_scope)>
            pcf.write_slice %v1 into %out[%row_b, %lane] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<?x32xf32, sync(#iree_codegen.workgroup_scope)>
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
