// Two run_cluster phases sharing a payload through an scf.for loop, distributed by the generic
// baseline (pcf-distribute-run-clusters, first in --pipeline pcf-to-gpu): y = 2^steps * (x * x + 1).
// Phase 1 squares the 10x16 tile x and adds 1; phase 2 doubles the payload once per step (the
// payload is the loop's iter_arg); phase 3 writes it to y. The payload's class
// {%p0, %cur, %next, %pn} gets one workgroup buffer and one distribution: 10 rows in blocks of
// 3 over the 4 subgroups (the last subgroup has one row), 16 columns cyclically over the lanes.
//   layoutkit compile examples/pcf/elementwise_chain.mlir --pipeline pcf-to-gpu --workgroup-size 128 --subgroup-size 32 -o chain.mlir
//   layoutkit simulate chain.mlir --function chain --arg x=x.npy --arg y=y.npy --arg steps=3 --out res
func.func @chain(%x: memref<10x16xf32>, %y: memref<10x16xf32>, %steps: index) -> memref<10x16xf32> {
  %one = arith.constant 1 : index
  %r:2 = pcf.loop scope(#iree_codegen.workgroup_scope) count(%one)
    execute(%xs = %x, %ys = %y)[%wg: index]
         : (!pcf.sref<10x16xf32, #iree_codegen.workgroup_scope>, !pcf.sref<10x16xf32, sync(#iree_codegen.workgroup_scope)>)
        -> (memref<10x16xf32>, memref<10x16xf32>) {
    pcf.shared_executor scope(#iree_gpu.subgroup_scope)
      execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %p0 = pcf.shared_executor.run_cluster %tg : !pcf.threadgroup<#iree_gpu.subgroup_scope>
          -> !pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<10x16xf32>)> {
        %t = pcf.read_slice %xs[0, 0] [10, 16] [1, 1] : !pcf.sref<10x16xf32, #iree_codegen.workgroup_scope> to tensor<10x16xf32>
        %sq = arith.mulf %t, %t : tensor<10x16xf32>
        %ones = arith.constant dense<1.0> : tensor<10x16xf32>
        %s = arith.addf %sq, %ones : tensor<10x16xf32>
        pcf.yield %s : tensor<10x16xf32>
      }
      %pn = scf.for %i = %c0 to %steps step %c1 iter_args(%cur = %p0)
          -> (!pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<10x16xf32>)>) {
        %next = pcf.shared_executor.run_cluster %tg ins(%cur : !pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<10x16xf32>)>)
            : !pcf.threadgroup<#iree_gpu.subgroup_scope>
            -> !pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<10x16xf32>)> {
        ^bb0(%v: tensor<10x16xf32>):
          %d = arith.addf %v, %v : tensor<10x16xf32>
          pcf.yield %d : tensor<10x16xf32>
        }
        scf.yield %next : !pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<10x16xf32>)>
      }
      pcf.shared_executor.run_cluster %tg ins(%pn : !pcf.threadgroup<#iree_gpu.subgroup_scope, shared(tensor<10x16xf32>)>)
          : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
      ^bb0(%v: tensor<10x16xf32>):
        pcf.write_slice %v into %ys[0, 0] [10, 16] [1, 1] : tensor<10x16xf32> into !pcf.sref<10x16xf32, sync(#iree_codegen.workgroup_scope)>
        pcf.yield
      }
      pcf.return
    }
    pcf.return
  }
  return %r#1 : memref<10x16xf32>
}
