// RUN: not layoutkit opt --pcf-resolve-clusters %s 2>&1 | filecheck %s
// A run_cluster of tg.right reading tg.left's shared payload gets it through a workgroup
// buffer (resolve-clusters-handoff.mlir); a payload that is not a scalar or a vector (here a
// tensor) cannot be put there, and the pass says so instead of producing wrong code.
// CHECK: error: pcf-resolve-clusters: the shared payload tensor<4xf32> of tg.left is read by another cluster: only scalars and vectors are moved through workgroup memory
// CHECK-NOT: Traceback
func.func @cross(%h: index) {
  pcf.shared_executor scope(#iree_gpu.subgroup_scope)
    execute[%tg: !pcf.threadgroup<#iree_gpu.subgroup_scope>] {
    pcf.shared_executor.tile_group %tg split(%h) : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
    ^bb0(%left: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left>,
         %right: !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right>):
      %p = pcf.shared_executor.run_cluster %left : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left>
          -> !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, shared(tensor<4xf32>)> {
        %one = arith.constant dense<1.0> : tensor<4xf32>
        pcf.yield %one : tensor<4xf32>
      }
      pcf.shared_executor.run_cluster %right ins(%p : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (0, d0)>, tg.left, shared(tensor<4xf32>)>)
          : !pcf.cluster<#iree_gpu.subgroup_scope, affine_map<(d0)[s0] -> (d0, s0)>, tg.right> {
      ^bb0(%v: tensor<4xf32>):
        pcf.yield
      }
      pcf.yield
    }
    pcf.return
  }
  func.return
}
