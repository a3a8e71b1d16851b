// Cluster resolution of an executor with a read-only operand and an initialize region:
// out[b, c] = scale * x[c] + b, plus 100 on the columns of the right cluster's subgroups.
// 4 subgroups of 32 lanes; subgroup w writes columns 8 w .. 8 w + 7; tg.left is subgroups
// [0, h), tg.right [h, 4). %x is read only (`<-`, no result); `initialize` yields the scale
// and the bias, the same for every worker.
//   layoutkit compile examples/pcf/clusters_readonly.mlir --pipeline pcf-to-gpu --workgroup-size 128 --subgroup-size 32 -o ro.mlir
//   layoutkit simulate ro.mlir --function ro_scale --arg x=x.npy --arg y=y.npy --arg h=1 --arg tm=2 --out res
func.func @ro_scale(%x: memref<32xf32>, %y: memref<?x32xf32>, %h: index, %tm: index) -> memref<?x32xf32> {
  %r = pcf.loop scope(#iree_codegen.workgroup_scope) count(%tm)
    execute(%out = %y)[%bi: index]
         : (!pcf.sref<?x32xf32, sync(#iree_codegen.workgroup_scope)>) -> (memref<?x32xf32>) {
    pcf.shared_executor scope(#iree_gpu.subgroup_scope) initialize {
      %two = arith.constant 2.0 : f32
      %hundred = arith.constant 100.0 : f32
      pcf.yield %two, %hundred : f32, f32
    } -> (%scale: f32, %bias: f32)
      execute(%in <- %x)[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>]
           : (!pcf.sref<32xf32, #iree_gpu.subgroup_scope>)
          -> () reads(memref<32xf32>) {
      pcf.shared_executor.tile_group %tg split(%h) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
      ^bb0(%left: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left>,
           %right: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right>):
        pcf.shared_executor.run_thread %left : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left> {
        ^bb0(%t: index):
          pcf.generic scope(#iree_gpu.lane_scope) execute[%lane: index, %lanes: index] {
            %c8 = arith.constant 8 : index
            %mine = arith.cmpi ult, %lane, %c8 : index
            scf.if %mine {
              %base = arith.muli %t, %c8 : index
              %col = arith.addi %base, %lane : index
              %xv = pcf.read_slice %in[%col] [1] [1] : !pcf.sref<32xf32, #iree_gpu.subgroup_scope> to vector<1xf32>
              %xs = vector.extract %xv[0] : f32 from vector<1xf32>
              %row = arith.index_cast %bi : index to i32
              %rowf = arith.sitofp %row : i32 to f32
              %sx = arith.mulf %scale, %xs : f32
              %v = arith.addf %sx, %rowf : f32
              %vv = vector.broadcast %v : f32 to vector<1x1xf32>
              pcf.write_slice %vv into %out[%bi, %col] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<?x32xf32, sync(#iree_codegen.workgroup_scope)>
            }
            pcf.return
          }
          pcf.yield
        }
        pcf.shared_executor.run_thread %right : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right> {
        ^bb0(%u: index):
          pcf.generic scope(#iree_gpu.lane_scope) execute[%lane: index, %lanes: index] {
            %c8 = arith.constant 8 : index
            %mine = arith.cmpi ult, %lane, %c8 : index
            scf.if %mine {
              %w = arith.addi %u, %h : index
              %base = arith.muli %w, %c8 : index
              %col = arith.addi %base, %lane : index
              %xv = pcf.read_slice %in[%col] [1] [1] : !pcf.sref<32xf32, #iree_gpu.subgroup_scope> to vector<1xf32>
              %xs = vector.extract %xv[0] : f32 from vector<1xf32>
              %row = arith.index_cast %bi : index to i32
              %rowf = arith.sitofp %row : i32 to f32
              %sx = arith.mulf %scale, %xs : f32
              %sb = arith.addf %sx, %bias : f32
              %v = arith.addf %sb, %rowf : f32
              %vv = vector.broadcast %v : f32 to vector<1x1xf32>
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
