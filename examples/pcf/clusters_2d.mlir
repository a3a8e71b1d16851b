// Cluster resolution on a rank-2 worker grid: three boxes over the subgroups' (w0, w1) grid,
// q0 = [0, h) x [0, v), q1 = [0, h) x [v, s1), q2 = [h, s0) x [0, s1); a worker's cluster
// is found from both ids and run_thread gets both tile-relative ids (%i, %j). As IREE gives
// several subgroup ids, the grid is (subgroups) x 1: id 1 is 0, so v = 1 puts subgroups [0, h)
// in q0 and v = 0 in q1. Subgroup w writes columns 8 w .. 8 w + 7 of row b:
// 1000 (cluster + 1) + 10 i + j + b.
//   layoutkit compile examples/pcf/clusters_2d.mlir --pipeline pcf-to-gpu --workgroup-size 128 --subgroup-size 32 -o c2.mlir
//   layoutkit simulate c2.mlir --function boxes --arg y=y.npy --arg h=1 --arg v=1 --arg tm=2 --out res
func.func @boxes(%y: memref<?x32xf32>, %h: index, %v: index, %tm: index) -> memref<?x32xf32> {
  %r = pcf.loop scope(#iree_codegen.workgroup_scope) count(%tm)
    execute(%out = %y)[%bi: index]
         : (!pcf.sref<?x32xf32, sync(#iree_codegen.workgroup_scope)>) -> (memref<?x32xf32>) {
    %c0 = arith.constant 0 : index
    pcf.shared_executor scope(#iree_gpu.subgroup_scope)
      execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
      pcf.shared_executor.tile_group %tg split(%h, %v) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
      ^bb0(%q0: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0, d1)[s0, s1] -> (0, d0, 0, d1)>, tg.q0>,
           %q1: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0, d1)[s0, s1] -> (0, d0, d1, s1)>, tg.q1>,
           %q2: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0, d1)[s0, s1] -> (d0, s0, 0, s1)>, tg.q2>):
        pcf.shared_executor.run_thread %q0 : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0, d1)[s0, s1] -> (0, d0, 0, d1)>, tg.q0> {
        ^bb0(%i: index, %j: index):
          pcf.generic scope(#iree_gpu.lane_scope) execute[%lane: index, %lanes: index] {
            %c8 = arith.constant 8 : index
            %mine = arith.cmpi ult, %lane, %c8 : index
            scf.if %mine {
              %w = arith.addi %i, %c0 : index
              %base = arith.muli %w, %c8 : index
              %col = arith.addi %base, %lane : index
              %c10 = arith.constant 10 : index
              %ten_i = arith.muli %i, %c10 : index
              %ij = arith.addi %ten_i, %j : index
              %tag = arith.constant 1000 : index
              %v0 = arith.addi %ij, %tag : index
              %v1 = arith.addi %v0, %bi : index
              %vi = arith.index_cast %v1 : index to i32
              %vf = arith.sitofp %vi : i32 to f32
              %vv = vector.broadcast %vf : f32 to vector<1x1xf32>
              pcf.write_slice %vv into %out[%bi, %col] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<?x32xf32, sync(#iree_codegen.workgroup_scope)>
            }
            pcf.return
          }
          pcf.yield
        }
        pcf.shared_executor.run_thread %q1 : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0, d1)[s0, s1] -> (0, d0, d1, s1)>, tg.q1> {
        ^bb0(%i: index, %j: index):
          pcf.generic scope(#iree_gpu.lane_scope) execute[%lane: index, %lanes: index] {
            %c8 = arith.constant 8 : index
            %mine = arith.cmpi ult, %lane, %c8 : index
            scf.if %mine {
              %w = arith.addi %i, %c0 : index
              %base = arith.muli %w, %c8 : index
              %col = arith.addi %base, %lane : index
              %c10 = arith.constant 10 : index
              %ten_i = arith.muli %i, %c10 : index
              %ij = arith.addi %ten_i, %j : index
              %tag = arith.constant 2000 : index
              %v0 = arith.addi %ij, %tag : index
              %v1 = arith.addi %v0, %bi : index
              %vi = arith.index_cast %v1 : index to i32
              %vf = arith.sitofp %vi : i32 to f32
              %vv = vector.broadcast %vf : f32 to vector<1x1xf32>
              pcf.write_slice %vv into %out[%bi, %col] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<?x32xf32, sync(#iree_codegen.workgroup_scope)>
            }
            pcf.return
          }
          pcf.yield
        }
        pcf.shared_executor.run_thread %q2 : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0, d1)[s0, s1] -> (d0, s0, 0, s1)>, tg.q2> {
        ^bb0(%i: index, %j: index):
          pcf.generic scope(#iree_gpu.lane_scope) execute[%lane: index, %lanes: index] {
            %c8 = arith.constant 8 : index
            %mine = arith.cmpi ult, %lane, %c8 : index
            scf.if %mine {
              %w = arith.addi %i, %h : index
              %base = arith.muli %w, %c8 : index
              %col = arith.addi %base, %lane : index
              %c10 = arith.constant 10 : index
              %ten_i = arith.muli %i, %c10 : index
              %ij = arith.addi %ten_i, %j : index
              %tag = arith.constant 3000 : index
              %v0 = arith.addi %ij, %tag : index
              %v1 = arith.addi %v0, %bi : index
              %vi = arith.index_cast %v1 : index to i32
              %vf = arith.sitofp %vi : i32 to f32
              %vv = vector.broadcast %vf : f32 to vector<1x1xf32>
              pcf.write_slice %vv into %out[%bi, %col] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<?x32xf32, sync(#iree_codegen.workgroup_scope)>
            }
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
